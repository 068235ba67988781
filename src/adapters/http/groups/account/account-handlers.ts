import { getProfile } from "../../../../application/account/profile.ts";
import type { AppServices } from "../../api/app-services.ts";
import type { GroupHandlers } from "../../api/mount.ts";
import type { account } from "./account-api.ts";

/** The calling account (account-api.ts). */
export const accountHandlers: GroupHandlers<typeof account, AppServices> = {
  getProfile: ({ principal }) => getProfile(principal),
};
