import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { makeNodeWebhookCrypto, standardWebhookSignature } from "../../src/adapters/crypto/node-webhook-crypto.ts";

const crypto = makeNodeWebhookCrypto(Buffer.alloc(32, 7));

describe("webhook signatures (Standard Webhooks)", () => {
  it("match the specification's published example", () => {
    // The example of the Standard Webhooks specification and its reference libraries.
    const signature = standardWebhookSignature("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, '{"test": 2432232314}');
    expect(signature).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  });

  it("verify with the standardwebhooks package, with a new secret", () => {
    const secret = crypto.newSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const timestamp = Math.floor(Date.now() / 1000);
    const body = JSON.stringify({ type: "job.succeeded", timestamp: new Date().toISOString(), data: { jobId: "j1" } });
    const headers = { "webhook-id": "msg_1", "webhook-timestamp": String(timestamp), "webhook-signature": crypto.sign(secret, "msg_1", timestamp, body) };
    expect(new Webhook(secret).verify(body, headers)).toMatchObject({ type: "job.succeeded" });
    expect(() => new Webhook(crypto.newSecret()).verify(body, headers)).toThrow();
  });

  it("seal a secret so that only the same key opens it", () => {
    const secret = crypto.newSecret();
    const sealed = crypto.seal(secret);
    expect(sealed).not.toContain(secret.slice(6));
    expect(crypto.unseal(sealed)).toBe(secret);
    expect(makeNodeWebhookCrypto(Buffer.alloc(32, 8)).unseal(sealed)).toBeUndefined();
    const altered = sealed.slice(0, -4) + (sealed.endsWith("AAAA") ? "BBBB" : "AAAA");
    expect(crypto.unseal(altered)).toBeUndefined();
  });
});
