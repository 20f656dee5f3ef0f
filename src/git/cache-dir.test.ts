import { describe, expect, it } from "vitest";
import { gitCacheDir } from "./cache-dir.js";

describe("gitCacheDir", () => {
  it.each([
    // name; --git-cache-dir; the system's temporary directory; the directory used
    {
      name: "an empty setting means appset-git-cache in the temporary directory",
      configured: "",
      tmp: "/tmp",
      want: "/tmp/appset-git-cache",
    },
    { name: "a blank setting counts as empty", configured: "  ", tmp: "/var/tmp", want: "/var/tmp/appset-git-cache" },
    { name: "a configured directory is used as given", configured: "/var/cache/appset", tmp: "/tmp", want: "/var/cache/appset" },
  ])("$name", ({ configured, tmp, want }) => {
    expect(gitCacheDir(configured, tmp)).toBe(want);
  });
});
