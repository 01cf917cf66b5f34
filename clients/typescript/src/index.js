// Outrider's typed client: the generated outrider.v1 services over the gRPC protocol (HTTP/2),
// plus one helper for the bidirectional Interact stream. Types: index.d.ts and gen/**/*.d.ts.
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { BrowserControlService } from "./gen/outrider/v1/browser_control_service_pb.js";
import { InteractionService } from "./gen/outrider/v1/interaction_service_pb.js";
import { RunService } from "./gen/outrider/v1/run_service_pb.js";

export { BrowserControlService } from "./gen/outrider/v1/browser_control_service_pb.js";
export { InteractionService } from "./gen/outrider/v1/interaction_service_pb.js";
export { RunService } from "./gen/outrider/v1/run_service_pb.js";

/** Clients of the services on one HTTP/2 connection to `baseUrl` (e.g. "http://localhost:50051"). */
export function createOutriderClient({ baseUrl, apiKey, interceptors = [] }) {
  const withKey = apiKey
    ? [
        (next) => async (request) => {
          request.header.set("authorization", `Bearer ${apiKey}`);
          return next(request);
        },
      ]
    : [];
  const transport = createGrpcTransport({ baseUrl, interceptors: [...withKey, ...interceptors] });
  return {
    runs: createClient(RunService, transport),
    interactions: createClient(InteractionService, transport),
    browser: createClient(BrowserControlService, transport),
  };
}

/** Opens an Interact stream that starts with `first` (a start or attach action); `send` writes
 * answers or a cancel on the same stream while `responses` is read; `close` ends the requests. */
export function openInteraction(client, first, callOptions) {
  const requests = new RequestQueue();
  requests.push(first);
  return {
    responses: client.interactions.interact(requests, callOptions),
    send: (action) => requests.push(action),
    close: () => requests.close(),
  };
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
