import { describe, expect, it } from "vitest";
import { addressProblem, urlProblem } from "../../src/adapters/webhooks/webhook-target-rules.ts";

/** [address, allowed with the insecure flag off, allowed with it on] */
const ADDRESSES: ReadonlyArray<readonly [string, boolean, boolean]> = [
  ["93.184.215.14", true, true],
  ["8.8.8.8", true, true],
  ["2606:4700:4700::1111", true, true],
  ["127.0.0.1", false, true],
  ["127.255.255.254", false, true],
  ["10.0.0.1", false, true],
  ["172.16.0.1", false, true],
  ["172.31.255.255", false, true],
  ["172.32.0.1", true, true],
  ["192.168.1.1", false, true],
  ["::1", false, true],
  ["fc00::1", false, true],
  ["fd12:3456::1", false, true],
  ["0.0.0.0", false, false],
  ["0.1.2.3", false, false],
  ["169.254.169.254", false, false],
  ["169.254.0.1", false, false],
  ["100.64.0.1", false, false],
  ["100.127.255.255", false, false],
  ["224.0.0.1", false, false],
  ["239.255.255.250", false, false],
  ["255.255.255.255", false, false],
  ["::", false, false],
  ["fe80::1", false, false],
  ["febf::1", false, false],
  ["ff02::1", false, false],
  ["::ffff:127.0.0.1", false, true],
  ["::ffff:7f00:1", false, true],
  ["::ffff:169.254.169.254", false, false],
  ["::ffff:a9fe:a9fe", false, false],
  ["::ffff:10.0.0.1", false, true],
  ["::ffff:8.8.8.8", true, true],
  ["0:0:0:0:0:ffff:127.0.0.1", false, true],
  ["::127.0.0.1", false, false],
  ["64:ff9b::7f00:1", false, false],
  ["2002:7f00:1::", false, false],
];

describe("webhook target addresses", () => {
  it.each(ADDRESSES)("%s: allowed %s, with insecure targets %s", (address, secure, insecure) => {
    expect(addressProblem(address, false) === undefined).toBe(secure);
    expect(addressProblem(address, true) === undefined).toBe(insecure);
  });
});

describe("webhook target urls", () => {
  it.each([
    ["https://example.com/hooks", undefined],
    ["https://example.com:8443/a?b=c", undefined],
    ["http://example.com/hooks", "only https URLs may receive webhooks"],
    ["ftp://example.com/", "only https URLs may receive webhooks"],
    ["https://user:pass@example.com/", "credentials in the URL are not allowed"],
    ["https://example.com/#top", "a fragment is not allowed"],
    ["https://example.com/#", "a fragment is not allowed"],
    ["not a url", "not an absolute URL"],
    [`https://example.com/${"a".repeat(2048)}`, "longer than 2048 characters"],
    ["https://127.0.0.1/", "127.0.0.1 is a loopback or private address"],
    ["https://2130706433/", "127.0.0.1 is a loopback or private address"],
    ["https://0x7f.1/", "127.0.0.1 is a loopback or private address"],
    ["https://[::ffff:127.0.0.1]/", "::ffff:7f00:1 is a loopback or private address"],
    ["https://169.254.169.254/latest/meta-data", "169.254.169.254 is a link-local, unspecified, multicast, CGNAT or reserved address"],
  ])("%s", (url, problem) => {
    expect(urlProblem(url, false)).toBe(problem);
  });

  it("lets http and loopback through with the insecure flag, never the metadata address", () => {
    expect(urlProblem("http://127.0.0.1:8080/hook", true)).toBeUndefined();
    expect(urlProblem("http://169.254.169.254/", true)).toMatch(/link-local/);
  });
});
