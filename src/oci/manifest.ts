/**
 * Which layer of an OCI image manifest holds an artifact's files, by Argo CD's rules (its repo-server
 * `Extract`): at most 10 layers; a Helm chart (config media type `application/vnd.cncf.helm.config.v1+json`)
 * reads its chart content layer only, anything else the layers whose media type ends in `tar`,
 * `tar+gzip` or `tar.gzip`; each such layer must be among the allowed media types, and there must be
 * exactly one. Errors carry Argo CD's words. Pure.
 */
import { AppSetError } from "../errors.js";

/** The reason of every error about an artifact's manifest. */
export const OCI_MANIFEST_REASON = "OciManifestInvalid";

/** A manifest this controller cannot read an artifact from. */
export class OciManifestError extends AppSetError {
  constructor(message: string) {
    super(OCI_MANIFEST_REASON, message);
  }
}

/** The media type of a Helm chart's config. */
export const HELM_CONFIG_MEDIA_TYPE = "application/vnd.cncf.helm.config.v1+json";
/** The media type of a Helm chart's content layer. */
export const HELM_CHART_LAYER_MEDIA_TYPE = "application/vnd.cncf.helm.chart.content.v1.tar+gzip";

/** The layer media types read by default (Argo CD's repo-server `--oci-layer-media-types`). */
export const DEFAULT_OCI_LAYER_MEDIA_TYPES: readonly string[] = [
  "application/vnd.oci.image.layer.v1.tar",
  "application/vnd.oci.image.layer.v1.tar+gzip",
  HELM_CHART_LAYER_MEDIA_TYPE,
];

/** The most layers a manifest may list. */
export const MAX_OCI_LAYERS = 10;

/** One blob a manifest points at. */
export interface Descriptor {
  readonly mediaType: string;
  readonly digest: string;
  readonly size: number;
}

/** The parts of an image manifest the reader uses. */
export interface ImageManifest {
  readonly config?: Descriptor;
  readonly layers: readonly Descriptor[];
}

/** The content layer to read, and whether it is a chart (whose single top directory is the root). */
export interface ContentLayer {
  readonly layer: Descriptor;
  readonly helmChart: boolean;
  readonly gzip: boolean;
}

function isDescriptor(v: unknown): v is Descriptor {
  if (v === null || typeof v !== "object") return false;
  const d = v as Record<string, unknown>;
  return typeof d["digest"] === "string" && (d["mediaType"] === undefined || typeof d["mediaType"] === "string");
}

function descriptor(v: unknown): Descriptor | undefined {
  if (!isDescriptor(v)) return undefined;
  const d = v as unknown as Record<string, unknown>;
  return { mediaType: (d["mediaType"] as string | undefined) ?? "", digest: d["digest"] as string, size: Number(d["size"] ?? 0) };
}

/** Decodes a manifest's JSON as Go decodes it into an image manifest: unknown fields ignored, an index has no layers. */
export function parseManifest(text: string, digest: string): ImageManifest {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new OciManifestError(`error decoding oci manifest for digest ${digest}: ${(err as Error).message}`);
  }
  if (doc === null || typeof doc !== "object" || Array.isArray(doc))
    throw new OciManifestError(`error decoding oci manifest for digest ${digest}: not a JSON object`);
  const m = doc as Record<string, unknown>;
  const layers = Array.isArray(m["layers"]) ? m["layers"].map(descriptor) : [];
  if (layers.some((l) => l === undefined))
    throw new OciManifestError(`error decoding oci manifest for digest ${digest}: a layer has no digest`);
  const config = descriptor(m["config"]);
  return { ...(config === undefined ? {} : { config }), layers: layers as Descriptor[] };
}

function isContentLayer(mediaType: string): boolean {
  return mediaType.endsWith("tar+gzip") || mediaType.endsWith("tar.gzip") || mediaType.endsWith("tar");
}

/** The manifest's content layer, by the rules in the module comment. */
export function contentLayer(manifest: ImageManifest, allowedMediaTypes: readonly string[]): ContentLayer {
  if (manifest.layers.length > MAX_OCI_LAYERS)
    throw new OciManifestError(`expected no more than ${String(MAX_OCI_LAYERS)} oci layers, got ${String(manifest.layers.length)}`);
  const helmChart = manifest.config?.mediaType === HELM_CONFIG_MEDIA_TYPE;
  const content = manifest.layers.filter((l) => (helmChart ? l.mediaType === HELM_CHART_LAYER_MEDIA_TYPE : isContentLayer(l.mediaType)));
  for (const l of content) {
    if (!allowedMediaTypes.includes(l.mediaType))
      throw new OciManifestError(`oci layer media type ${l.mediaType} is not in the list of allowed media types`);
  }
  if (content.length !== 1) throw new OciManifestError(`expected only a single oci content layer, got ${String(content.length)}`);
  const layer = content[0]!;
  return { layer, helmChart, gzip: layer.mediaType.endsWith("tar+gzip") || layer.mediaType.endsWith("tar.gzip") };
}
