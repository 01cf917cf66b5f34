// Outrider's typed client: the generated outrider.v1 services over the gRPC protocol (HTTP/2),
// plus one helper for the bidirectional Interact stream. Types: index.d.ts and gen/**/*.d.ts.
// Starts carry a request id and are retried with it (starts.js).
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { BrowserControlService } from "./gen/outrider/v1/browser_control_service_pb.js";
import { CredentialService } from "./gen/outrider/v1/credential_service_pb.js";
import { InteractionService } from "./gen/outrider/v1/interaction_service_pb.js";
import { ProfileService } from "./gen/outrider/v1/profile_service_pb.js";
import { RunService } from "./gen/outrider/v1/run_service_pb.js";
import { SessionService } from "./gen/outrider/v1/session_service_pb.js";
import {
  defaultStartRetry,
  idempotentStarts,
  retriedInteraction,
  withRequestId,
} from "./starts.js";

export { BrowserControlService } from "./gen/outrider/v1/browser_control_service_pb.js";
export { CredentialService } from "./gen/outrider/v1/credential_service_pb.js";
export { InteractionService } from "./gen/outrider/v1/interaction_service_pb.js";
export { ProfileService } from "./gen/outrider/v1/profile_service_pb.js";
export { RunService } from "./gen/outrider/v1/run_service_pb.js";
export { SessionService } from "./gen/outrider/v1/session_service_pb.js";
export { defaultStartRetry } from "./starts.js";

/** Clients of the services on one HTTP/2 connection to `baseUrl` (e.g. "http://localhost:50051").
 * `startRetry: false` sends starts without a default request id and never sends one twice. */
export function createOutriderClient({
  baseUrl,
  apiKey,
  interceptors = [],
  startRetry = defaultStartRetry,
}) {
  const withKey = apiKey
    ? [
        (next) => async (request) => {
          request.header.set("authorization", `Bearer ${apiKey}`);
          return next(request);
        },
      ]
    : [];
  const starts = startRetry ? [idempotentStarts(startRetry)] : [];
  const transport = createGrpcTransport({
    baseUrl,
    interceptors: [...starts, ...withKey, ...interceptors],
  });
  return {
    runs: createClient(RunService, transport),
    interactions: createClient(InteractionService, transport),
    browser: createClient(BrowserControlService, transport),
    sessions: createClient(SessionService, transport),
    profiles: createClient(ProfileService, transport),
    credentials: createClient(CredentialService, transport),
    startRetry: startRetry || null,
  };
}

/** Opens an Interact stream that starts with `first` (a start or attach action); `send` writes
 * answers or a cancel on the same stream while `responses` is read; `close` ends the requests.
 * A start gets a request id unless it has one, and until its first response arrives it is sent
 * again (with what was sent after it) when the stream fails as `client.startRetry` allows. */
export function openInteraction(client, first, callOptions) {
  const policy = first.action?.case === "start" ? client.startRetry : null;
  if (policy) first = startWithRequestId(first);
  const sent = [first];
  let requests = null;
  let answered = false;
  let closed = false;
  const open = (messages) => {
    requests = new RequestQueue();
    for (const message of messages) requests.push(message);
    if (closed) requests.close();
    return client.interactions.interact(requests, callOptions);
  };
  async function* responses() {
    for await (const response of retriedInteraction(open, sent, policy, callOptions?.signal)) {
      answered = true;
      yield response;
    }
  }
  return {
    responses: responses(),
    send: (action) => {
      if (!answered) sent.push(action); // sent again if the start is
      requests?.push(action);
    },
    close: () => {
      closed = true;
      requests?.close();
    },
  };
}

function startWithRequestId(first) {
  const start = withRequestId({ ...first.action.value });
  return { ...first, action: { ...first.action, value: start } };
}

// An async iterable the caller can keep writing to: connect reads requests from it lazily.
class RequestQueue {
  #items = [];
  #waiting = null;
  #closed = false;

  push(item) {
    if (this.#closed) throw new Error("the Interact stream is already closed");
    this.#items.push(item);
    this.#wake();
  }

  close() {
    this.#closed = true;
    this.#wake();
  }

  #wake() {
    const waiting = this.#waiting;
    this.#waiting = null;
    waiting?.();
  }

  async *[Symbol.asyncIterator]() {
    for (;;) {
      if (this.#items.length > 0) yield this.#items.shift();
      else if (this.#closed) return;
      else await new Promise((resolve) => (this.#waiting = resolve));
    }
  }
}
