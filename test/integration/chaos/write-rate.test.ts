import { describe, expect, it } from "vitest";
import { peakWrites, writesIn } from "../../chaos/support/write-rate.js";

describe("the chaos suite's write rate", () => {
  it("sums the write methods of rest_client_requests_total and nothing else", () => {
    const exposition = [
      "# HELP rest_client_requests_total Number of HTTP requests, partitioned by status code, method, and host.",
      'rest_client_requests_total{code="201",host="127.0.0.1:6443",method="POST"} 12',
      'rest_client_requests_total{code="200",host="127.0.0.1:6443",method="PATCH"} 3',
      'rest_client_requests_total{code="<error>",host="127.0.0.1:6443",method="PUT"} 2',
      'rest_client_requests_total{code="200",host="127.0.0.1:6443",method="DELETE"} 1',
      'rest_client_requests_total{code="200",host="127.0.0.1:6443",method="GET"} 400',
      'rest_client_request_duration_seconds_count{method="POST"} 99',
    ].join("\n");
    expect(writesIn(exposition)).toBe(18);
  });

  it.each([
    // name; samples [ms, total writes]; expected peak in one second
    { name: "no samples", samples: [], peak: 0 },
    { name: "steady 10 a second", samples: [0, 250, 500, 750, 1_000, 1_250].map((t) => [t, t / 100] as const), peak: 10 },
    {
      name: "a burst inside one second",
      samples: [
        [0, 0],
        [250, 0],
        [500, 40],
        [750, 90],
        [1_000, 90],
        [2_000, 95],
      ] as const,
      peak: 90,
    },
    {
      name: "a burst spread over two seconds",
      samples: [
        [0, 0],
        [1_000, 60],
        [2_000, 120],
      ] as const,
      peak: 60,
    },
  ])("$name: peak $peak", ({ samples, peak }) => {
    expect(peakWrites(samples)).toBe(peak);
  });
});
