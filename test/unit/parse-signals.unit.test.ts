import { describe, expect, it } from "vitest";
import { judgeParse, PARSE_LIMITS, type ParseSignals } from "../../src/adapters/tryon/parse-signals.ts";

/** The engine's judgement of its person parse: refusals by name below the measured limits, a confidence above. */
const sure: ParseSignals = { shoulders: 0.6, elbows: 0.3, hips: 0.4, face: 0.7, frontal: 0.8, headTurn: 0.1, inFrame: 1, torsoPerson: 1 };

describe("judgeParse", () => {
  it("rates a sure parse: the keypoints' mean score times frontal, in-frame and person shares", () => {
    expect(judgeParse(sure)).toEqual({ sure: true, confidence: 0.4 });
    const half = judgeParse({ ...sure, inFrame: 0.5 });
    expect(half).toEqual({ sure: true, confidence: 0.2 });
  });

  it("refuses no face above the shoulders as PERSON_TURNED_AWAY", () => {
    expect(judgeParse({ ...sure, face: PARSE_LIMITS.face - 0.01 })).toMatchObject({ sure: false, code: "PERSON_TURNED_AWAY" });
    expect(judgeParse({ ...sure, face: PARSE_LIMITS.face })).toMatchObject({ sure: true });
  });

  it("refuses a body side-on to the camera or a face in profile as PERSON_TURNED_AWAY, saying which", () => {
    const sideOn = judgeParse({ ...sure, frontal: 0.16 });
    expect(sideOn).toMatchObject({ sure: false, code: "PERSON_TURNED_AWAY" });
    expect(!sideOn.sure && sideOn.message).toContain("turned sideways (the shoulders look 16 % as wide as a body facing the camera)");
    const profile = judgeParse({ ...sure, headTurn: 4.8 });
    expect(!profile.sure && profile.message).toContain("turned sideways (the face is seen in profile)");
    expect(judgeParse({ ...sure, frontal: PARSE_LIMITS.frontal, headTurn: PARSE_LIMITS.headTurn })).toMatchObject({ sure: true });
  });

  it("refuses a torso out of the photo or not seen as the person as TORSO_NOT_VISIBLE, with the share", () => {
    const cut = judgeParse({ ...sure, inFrame: 0.25 });
    expect(cut).toMatchObject({ sure: false, code: "TORSO_NOT_VISIBLE" });
    expect(!cut.sure && cut.message).toContain("only 25 % of the torso (shoulders to hips) is inside the photo");
    const hidden = judgeParse({ ...sure, torsoPerson: 0.37 });
    expect(!hidden.sure && hidden.message).toContain("only 37 % of the torso (shoulders to hips) is seen as the person");
    expect(judgeParse({ ...sure, inFrame: PARSE_LIMITS.inFrame, torsoPerson: PARSE_LIMITS.torsoPerson })).toMatchObject({ sure: true });
  });
});
