/**
 * Turns every failure into `{"error": {"code": status, "message": "..."}}` with a message a person
 * can act on. Validation errors name the field and the rule; unexpected errors are logged with the
 * request id and answered with a generic 500 that leaks nothing.
 */
import type { FastifyError, FastifyInstance } from "fastify";
import { BUSY_RETRY_AFTER_SECONDS, DomainError, type DomainErrorKind } from "../lib/errors.js";
import { HttpError } from "./errors.js";

/** The one place where a domain error becomes an HTTP status. */
export const statusOfDomainError: Record<DomainErrorKind, number> = {
  invalid: 400,
  forbidden: 403,
  "not-found": 404,
  conflict: 409,
  "precondition-failed": 412,
  "too-large": 413,
  busy: 429,
};

interface AjvError {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
}

function fieldName(context: string | undefined, instancePath: string, extra?: string): string {
  const location = context === "querystring" ? "query parameter" : context === "params" ? "path parameter" : (context ?? "request");
  const path = [...instancePath.split("/").filter(Boolean), ...(extra ? [extra] : [])].join(".");
  if (!path) return context === "body" ? "The request body" : `The ${location}`;
  return context === "body" ? `body.${path}` : `${location} "${path}"`;
}

function describeValue(value: unknown): string {
  return value === null ? "null" : JSON.stringify(value);
}

/** One clear sentence for the first thing wrong in the input. */
export function formatValidationError(errors: AjvError[], context: string | undefined): string {
  const first = errors[0];
  if (!first) return "The request is invalid.";
  // A union (e.g. role-or-null) fails with one error per branch, then an anyOf error. Report the
  // accepted values together instead of the first branch's complaint.
  const union = errors.find((e) => (e.keyword === "anyOf" || e.keyword === "oneOf") && e.instancePath === first.instancePath);
  if (union) {
    const allowed = new Set<string>();
    let onlyConstants = true;
    for (const e of errors) {
      if (e.instancePath !== first.instancePath) continue;
      if (e.keyword === "const") allowed.add(describeValue(e.params.allowedValue));
      else if (e.keyword === "enum") for (const v of (e.params.allowedValues as unknown[]) ?? []) allowed.add(describeValue(v));
      else if (e.keyword === "type" && e.params.type === "null") allowed.add("null");
      else if (e.keyword !== "anyOf" && e.keyword !== "oneOf") onlyConstants = false;
    }
    if (onlyConstants && allowed.size > 0) {
      return `${fieldName(context, first.instancePath)} must be one of: ${[...allowed].join(", ")}.`;
    }
  }
  const field = fieldName(context, first.instancePath);
  switch (first.keyword) {
    case "required":
      return `${fieldName(context, first.instancePath, String(first.params.missingProperty))} is required.`;
    case "additionalProperties":
      return `${fieldName(context, first.instancePath, String(first.params.additionalProperty))} is not a known property.`;
    case "enum":
      return `${field} must be one of: ${((first.params.allowedValues as unknown[]) ?? []).map(describeValue).join(", ")}.`;
    case "const":
      return `${field} must be ${describeValue(first.params.allowedValue)}.`;
    case "maxLength":
      return `${field} must be at most ${first.params.limit} characters long.`;
    case "minLength":
      return `${field} must be at least ${first.params.limit} characters long.`;
    case "maximum":
      return `${field} must be at most ${first.params.limit}.`;
    case "minimum":
      return `${field} must be at least ${first.params.limit}.`;
    case "maxItems":
      return `${field} must have at most ${first.params.limit} items.`;
    case "minItems":
      return `${field} must have at least ${first.params.limit} items.`;
    case "minProperties":
      return `${field} must set at least ${first.params.limit} ${first.params.limit === 1 ? "property" : "properties"}.`;
    case "type":
      return `${field} must be of type ${first.params.type}.`;
    case "finite":
      return `${field} must be a finite number.`;
    case "format":
      return `${field} must be a valid ${first.params.format}.`;
    case "pattern":
      return `${field} must match the pattern ${first.params.pattern}.`;
    default:
      return `${field} ${first.message ?? "is invalid"}.`;
  }
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | HttpError | Error, request, reply) => {
    if (error instanceof HttpError) {
      return reply.status(error.statusCode).send({ error: { code: error.statusCode, message: error.message } });
    }
    if (error instanceof DomainError) {
      const status = statusOfDomainError[error.kind];
      if (error.kind === "busy") reply.header("retry-after", String(BUSY_RETRY_AFTER_SECONDS));
      return reply.status(status).send({ error: { code: status, message: error.message } });
    }
    const fastifyError = error as FastifyError;
    if (fastifyError.validation) {
      const message = formatValidationError(fastifyError.validation as AjvError[], fastifyError.validationContext);
      return reply.status(400).send({ error: { code: 400, message } });
    }
    const status = fastifyError.statusCode;
    if (status && status >= 400 && status < 500) {
      const message = clientErrorMessage(fastifyError, request.routeOptions.bodyLimit ?? app.initialConfig.bodyLimit);
      return reply.status(status).send({ error: { code: status, message } });
    }
    request.log.error({ err: error }, "unhandled error");
    return reply.status(500).send({
      error: { code: 500, message: `Internal server error (request ${request.id}). The server log has the details.` },
    });
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split("?")[0];
    reply.status(404).send({ error: { code: 404, message: `No such endpoint: ${request.method} ${path}` } });
  });
}

function clientErrorMessage(error: FastifyError, bodyLimit: number | undefined): string {
  switch (error.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return `The request body is larger than the limit of ${bodyLimit ?? "the configured"} bytes.`;
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return "Unsupported Content-Type: send JSON with `Content-Type: application/json`.";
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return "The request body is empty; send a JSON object.";
    case "FST_ERR_CTP_INVALID_JSON_BODY":
      return `The request body is not valid JSON: ${error.message}`;
    default:
      if (error instanceof SyntaxError || error.name === "SyntaxError") {
        return `The request body is not valid JSON: ${error.message}`;
      }
      return error.message;
  }
}
