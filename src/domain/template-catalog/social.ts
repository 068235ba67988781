import { cover, define } from "./define-template.ts";
import type { Template } from "./template.ts";

/** Feed and header images at each network's own size, cropped around the subject. */
const social = (template: string, description: string, width: number, height: number): Template =>
  define("social", template, description, "jpeg", 85, [cover(width, height)]);

export const SOCIAL_TEMPLATES: ReadonlyArray<Template> = [
  social("instagram-square", "Instagram feed post, 1:1, cropped around the subject", 1080, 1080),
  social("instagram-portrait", "Instagram feed post, 4:5 portrait", 1080, 1350),
  social("instagram-story", "Instagram/TikTok story, 9:16, cropped around the subject", 1080, 1920),
  social("facebook-post", "Facebook link or feed image, 1.91:1", 1200, 630),
  social("facebook-cover", "Facebook page cover", 1640, 624),
  social("twitter-post", "X/Twitter in-feed image, 16:9", 1600, 900),
  social("twitter-header", "X/Twitter profile header, 3:1", 1500, 500),
  social("linkedin-banner", "LinkedIn profile background, 4:1", 1584, 396),
  social("youtube-thumbnail", "YouTube video thumbnail, 16:9", 1280, 720),
  social("pinterest-pin", "Pinterest pin, 2:3", 1000, 1500),
];
