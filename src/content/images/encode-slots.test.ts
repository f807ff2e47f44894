import { describe, expect, it } from "vitest";
import { EncodeSlots } from "./encode-slots.js";

describe("EncodeSlots", () => {
  it("gives a freed slot to a waiting request before a waiting job, and a request none when none frees up in time", async () => {
    const slots = new EncodeSlots(2);
    const first = await slots.forRequest(0);
    const second = await slots.forRequest(0);
    expect(first && second).toBeTruthy();
    expect(slots.running).toBe(2);
    // Busy: a request that may not wait gets none, and one that waits gets none once its time is out.
    expect(await slots.forRequest(0)).toBeUndefined();
    expect(await slots.forRequest(5)).toBeUndefined();

    const order: string[] = [];
    const job = slots.forJob().then((release) => {
      order.push("job");
      return release;
    });
    const request = slots.forRequest(60_000).then((release) => {
      order.push("request");
      return release;
    });
    first!();
    const requestRelease = await request;
    expect(order).toEqual(["request"]);
    expect(slots.running).toBe(2);
    requestRelease!();
    const jobRelease = await job;
    expect(order).toEqual(["request", "job"]);
    // Releasing twice frees one slot, once.
    jobRelease();
    jobRelease();
    second!();
    expect(slots.running).toBe(0);
  });
});
