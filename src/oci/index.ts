/** Reading OCI artifacts from registries (docs/generators.md#oci). */
export {
  artifactDirectories,
  artifactFiles,
  OciLayerError,
  OCI_LAYER_REASON,
  readArtifactTree,
  type ArtifactTree,
} from "./artifact-tree.js";
export { contentLayer, DEFAULT_OCI_LAYER_MEDIA_TYPES, OciManifestError, parseManifest, type ImageManifest } from "./manifest.js";
export { isOciURL, OciReferenceError, parseOciRepository, type OciRepository } from "./reference.js";
export { RegistryOciReader, type OciReader, type OciReaderOptions, type OciReadOptions } from "./reader.js";
export { OciRegistryError, RegistryClient, type RegistryAccess } from "./registry-client.js";
