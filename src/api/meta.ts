/**
 * Kubernetes building blocks shared by every resource schema: ObjectMeta, OwnerReference,
 * LabelSelector, and the small `{name, value}` / secret-reference shapes Argo CD reuses.
 *
 * Every object schema is loose (`z.looseObject`): fields we do not model survive parse and
 * serialize unchanged, so a newer Argo CD or a hand-edited object never loses data through us.
 */
import { z } from "zod";

/** A Kubernetes timestamp (RFC 3339 string). Go marshals a zero `metav1.Time` as `null`. */
export const timeSchema = z.string().nullish();

/** `map[string]string`, as used by labels, annotations and generator `values`. */
export const stringMapSchema = z.record(z.string(), z.string());

/** An ownerReference on ObjectMeta. */
export const ownerReferenceSchema = z.looseObject({
  apiVersion: z.string(),
  kind: z.string(),
  name: z.string(),
  uid: z.string(),
  controller: z.boolean().optional(),
  blockOwnerDeletion: z.boolean().optional(),
});
export type OwnerReference = z.infer<typeof ownerReferenceSchema>;

/** ObjectMeta: the fields the controllers read or write; everything else is kept as-is. */
export const objectMetaSchema = z.looseObject({
  name: z.string().optional(),
  generateName: z.string().optional(),
  namespace: z.string().optional(),
  uid: z.string().optional(),
  resourceVersion: z.string().optional(),
  generation: z.number().int().optional(),
  creationTimestamp: timeSchema,
  deletionTimestamp: timeSchema,
  deletionGracePeriodSeconds: z.number().int().nullish(),
  labels: stringMapSchema.optional(),
  annotations: stringMapSchema.optional(),
  finalizers: z.array(z.string()).optional(),
  ownerReferences: z.array(ownerReferenceSchema).optional(),
  managedFields: z.array(z.unknown()).optional(),
});
export type ObjectMeta = z.infer<typeof objectMetaSchema>;

/**
 * Marks a list that server-side apply replaces whole rather than merging item by item
 * (`x-kubernetes-list-type: atomic`), as Kubernetes does for the lists of a LabelSelector.
 */
export const CRD_ATOMIC_LIST = { "x-kubernetes-list-type": "atomic" } as const;

/** Marks an object that server-side apply replaces whole (`x-kubernetes-map-type: atomic`). */
export const CRD_ATOMIC_MAP = { "x-kubernetes-map-type": "atomic" } as const;

/** One `matchExpressions` entry of a LabelSelector (operators: In, NotIn, Exists, DoesNotExist). */
export const labelSelectorRequirementSchema = z.looseObject({
  key: z.string(),
  operator: z.string(),
  values: z.array(z.string()).meta(CRD_ATOMIC_LIST).optional(),
});
export type LabelSelectorRequirement = z.infer<typeof labelSelectorRequirementSchema>;

/** metav1.LabelSelector. An empty selector matches everything. */
export const labelSelectorSchema = z
  .looseObject({
    matchLabels: stringMapSchema.optional(),
    matchExpressions: z.array(labelSelectorRequirementSchema).meta(CRD_ATOMIC_LIST).optional(),
  })
  .meta(CRD_ATOMIC_MAP);
export type LabelSelector = z.infer<typeof labelSelectorSchema>;

/** A `{name, value}` pair (Application `info`, Operation `info`). */
export const infoSchema = z.looseObject({ name: z.string(), value: z.string() });
export type Info = z.infer<typeof infoSchema>;

/** A reference to one key of a Secret (`{secretName, key}`). */
export const secretRefSchema = z.looseObject({ secretName: z.string(), key: z.string() });
export type SecretRef = z.infer<typeof secretRefSchema>;

/** A reference to one key of a ConfigMap (`{configMapName, key}`), used for CA bundles. */
export const configMapKeyRefSchema = z.looseObject({ configMapName: z.string(), key: z.string() });
export type ConfigMapKeyRef = z.infer<typeof configMapKeyRefSchema>;

/**
 * Marks an object whose CRD schema keeps unknown fields (`x-kubernetes-preserve-unknown-fields`):
 * used where Argo CD's schema is large or changes often (Helm/Kustomize options, project roles),
 * so our CRD never prunes a field a newer Argo CD writes there.
 */
export const CRD_PRESERVE = { "x-crd": "preserve" } as const;

/**
 * Marks a field the CRD requires (as Argo CD's does) while the parser still accepts an object
 * without it: objects stored before the field became required keep parsing, and every write goes
 * through the apiserver, which enforces it.
 */
export const CRD_REQUIRED = { "x-crd-required": true } as const;

/** The `apiVersion`/`kind` pair of a top-level resource; a list item may omit both. */
export function typeMetaShape<V extends string, K extends string>(
  apiVersion: V,
  kind: K,
): { apiVersion: z.ZodOptional<z.ZodLiteral<V>>; kind: z.ZodOptional<z.ZodLiteral<K>> } {
  return { apiVersion: z.literal(apiVersion).optional(), kind: z.literal(kind).optional() };
}
