// Errors of the agentbox API as exceptions: one class per API error code (docs/api.md, Errors).
// Every error answer is JSON {"error": "one line", "code": "not_found"}; the exception carries
// both, and the HTTP status.

export class AgentboxError extends Error {
  readonly code: string;
  readonly status: number;
  constructor(message: string, code = "internal", status = 0) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.status = status;
  }
}

/** 400: a bad body, key or value. */
export class InvalidArgument extends AgentboxError {}
/** 401: no token, or a wrong one. */
export class Unauthenticated extends AgentboxError {}
/** 403: a path escaping /workspace, a host path the server does not take. */
export class PermissionDenied extends AgentboxError {}
/** 404: no such sandbox, file, process or route (or another tenant's). */
export class NotFound extends AgentboxError {}
/** 409: a name the tenant has (already_exists), a busy sandbox (failed_precondition). */
export class Conflict extends AgentboxError {}
/** 413 / 429: too large, or over a quota (retry after a while). */
export class ResourceExhausted extends AgentboxError {}
/** 503: the sandbox is dead, the host cannot make one; or the server cannot be reached. */
export class Unavailable extends AgentboxError {}
/** 500: a bug. */
export class Internal extends AgentboxError {}

const byCode: Record<string, typeof AgentboxError> = {
  invalid_argument: InvalidArgument,
  permission_denied: PermissionDenied,
  not_found: NotFound,
  already_exists: Conflict,
  failed_precondition: Conflict,
  resource_exhausted: ResourceExhausted,
  unavailable: Unavailable,
  internal: Internal,
};

const byStatus: Record<number, typeof AgentboxError> = {
  400: InvalidArgument,
  401: Unauthenticated,
  403: PermissionDenied,
  404: NotFound,
  409: Conflict,
  413: ResourceExhausted,
  429: ResourceExhausted,
  503: Unavailable,
};

/** The exception for an error answer: its JSON body's code, else the status's meaning. */
export function errorFromAnswer(status: number, body: string): AgentboxError {
  let message = body.trim() || `HTTP ${status}`;
  let code = "";
  try {
    const data = JSON.parse(body) as { error?: unknown; code?: unknown };
    if (typeof data.error === "string") message = data.error;
    if (typeof data.code === "string") code = data.code;
  } catch {
    // not JSON: the text is the message
  }
  const cls = status === 401 ? Unauthenticated : (byCode[code] ?? byStatus[status] ?? Internal);
  return new cls(message, code || (status === 401 ? "unauthenticated" : "internal"), status);
}
