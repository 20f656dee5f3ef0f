import { describe, expect, it } from "vitest";
import {
  contentLayer,
  DEFAULT_OCI_LAYER_MEDIA_TYPES,
  HELM_CHART_LAYER_MEDIA_TYPE,
  HELM_CONFIG_MEDIA_TYPE,
  parseManifest,
} from "./manifest.js";

const layer = (mediaType: string, n = 1) => ({ mediaType, digest: `sha256:${String(n).padStart(64, "0")}`, size: 10 });
const TAR = "application/vnd.oci.image.layer.v1.tar";
const TGZ = "application/vnd.oci.image.layer.v1.tar+gzip";

describe("contentLayer", () => {
  it.each([
    { name: "one tar+gzip layer", layers: [layer(TGZ)], want: { gzip: true, helmChart: false } },
    { name: "one tar layer", layers: [layer(TAR)], want: { gzip: false, helmChart: false } },
    {
      name: "a content layer beside a provenance layer",
      layers: [layer("application/vnd.in-toto+json", 1), layer(TGZ, 2)],
      want: { gzip: true, helmChart: false },
    },
    {
      name: "a chart",
      config: HELM_CONFIG_MEDIA_TYPE,
      layers: [layer(HELM_CHART_LAYER_MEDIA_TYPE)],
      want: { gzip: true, helmChart: true },
    },
  ])("reads $name", ({ layers, config, want }) => {
    const manifest = { layers, ...(config === undefined ? {} : { config: { mediaType: config, digest: "sha256:c", size: 1 } }) };
    expect(contentLayer(manifest, DEFAULT_OCI_LAYER_MEDIA_TYPES)).toMatchObject(want);
  });

  it.each([
    { name: "no content layer", layers: [layer("application/json")], error: "expected only a single oci content layer, got 0" },
    { name: "two content layers", layers: [layer(TGZ, 1), layer(TAR, 2)], error: "expected only a single oci content layer, got 2" },
    {
      name: "a content layer of a type not allowed",
      layers: [layer("application/x-custom.tar")],
      error: "oci layer media type application/x-custom.tar is not in the list of allowed media types",
    },
    {
      name: "eleven layers",
      layers: Array.from({ length: 11 }, (_, i) => layer("text/plain", i)),
      error: "expected no more than 10 oci layers, got 11",
    },
  ])("refuses $name", ({ layers, error }) => {
    expect(() => contentLayer({ layers }, DEFAULT_OCI_LAYER_MEDIA_TYPES)).toThrow(error);
  });
});

describe("parseManifest", () => {
  it("reads an index as a manifest without layers", () => {
    expect(parseManifest('{"schemaVersion":2,"manifests":[]}', "sha256:x").layers).toEqual([]);
  });

  it("refuses text that is not JSON", () => {
    expect(() => parseManifest("<html>", "sha256:x")).toThrow(/^error decoding oci manifest for digest sha256:x: /);
  });
});
