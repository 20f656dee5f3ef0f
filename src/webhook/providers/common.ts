/**
 * What every provider module supplies: how to recognise its requests, how to check them, and how
 * to turn a checked body into a {@link WebhookEvent}. Parsers throw {@link MalformedPayload} for a
 * body that is not the provider's documented shape.
 */
import type { z } from "zod";
import type { CheckResult } from "../verify.js";
import type { SenderName, WebhookEvent, WebhookRequest, WebhookSecrets } from "../types.js";

/** A body that is not JSON, or not the documented payload of its event. */
export class MalformedPayload extends Error {}

/** One Git hosting product's webhook dialect. */
export interface ProviderSpec {
  readonly name: SenderName;
  /** Whether the request's headers are this provider's. */
  detect(headers: WebhookRequest["headers"]): boolean;
  /** Checks the request's signature, token or credentials against the configured secrets. */
  verify(req: WebhookRequest, secrets: WebhookSecrets): CheckResult;
  /** The event in a verified request; throws {@link MalformedPayload}. */
  parse(req: WebhookRequest): WebhookEvent;
}

/** Parses a JSON body against a schema, or throws {@link MalformedPayload} naming what was expected. */
export function decodeJson<T>(body: Buffer | string, schema: z.ZodType<T>, what: string): T {
  let raw: unknown;
  try {
    raw = JSON.parse(typeof body === "string" ? body : body.toString("utf8"));
  } catch {
    throw new MalformedPayload(`the body of the ${what} is not JSON`);
  }
  const res = schema.safeParse(raw);
  if (!res.success) {
    const issue = res.error.issues[0];
    const where = issue === undefined || issue.path.length === 0 ? "" : ` at ${issue.path.join(".")}`;
    throw new MalformedPayload(`the ${what} is malformed${where}: ${issue?.message ?? "invalid"}`);
  }
  return res.data;
}

/** The strings among some optional values, without duplicates or empties. */
export function present(...values: ReadonlyArray<string | null | undefined>): string[] {
  return [...new Set(values.filter((v): v is string => typeof v === "string" && v !== ""))];
}
