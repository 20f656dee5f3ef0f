import { describe, expect, it } from "vitest";
import { parseConfig, type Config } from "../config/index.js";
import { kubeClientOptions } from "./kube.js";

function config(argv: string[]): Config {
  const r = parseConfig(argv, {});
  if (r.kind !== "config") throw new Error(`expected a config, got ${JSON.stringify(r)}`);
  return r.config;
}

describe("kubeClientOptions", () => {
  it("impersonates every repeated --as-group, in order, with --as and --as-uid", () => {
    const options = kubeClientOptions(config(["--as", "alice", "--as-group", "first", "--as-group=second,third", "--as-uid", "7"]));
    expect(options.impersonate).toEqual({ user: "alice", groups: ["first", "second,third"], uid: "7" });
  });

  it("impersonates nobody without the flags", () => {
    expect(kubeClientOptions(config([])).impersonate).toEqual({ user: "", groups: [], uid: "" });
  });
});
