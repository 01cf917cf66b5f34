// Starts that are safe to send again. Every start (CreateRun, Automate, Research, an Interact
// start) carries a request id: the caller's as it is, else a new UUID. A start that gets
// UNAVAILABLE, or whose connection breaks before its first answer, is sent again with the same
// id, and the server answers with the run it may have started already instead of a second one.
import { randomUUID } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";

/** By default 4 attempts in all, waiting a random time of up to 0.2 s, 0.4 s, then 0.8 s between
 * them (full jitter), never more than 5 s. */
export const defaultStartRetry = Object.freeze({
  maxAttempts: 4,
  initialDelayMs: 200,
  maxDelayMs: 5000,
});

const STREAMING_STARTS = new Set(["Automate", "Research"]);
// What a broken connection looks like through connect-node besides UNAVAILABLE (an HTTP/2
// stream reset as CANCEL, a socket reset as ABORTED, ...): an error raised here, not one the
// server sent (`isWireError`), while the caller has not aborted the call itself.
const TRANSPORT_CODES = new Set([Code.Canceled, Code.Aborted, Code.Unknown, Code.Internal]);

/** Whether the `attempt`-th attempt's error is worth another one. */
export function retriesStart(error, attempt, policy, signal) {
  if (attempt >= policy.maxAttempts || signal?.aborted || !(error instanceof ConnectError)) {
    return false;
  }
  if (error.code === Code.Unavailable) return true;
  return !error.isWireError && TRANSPORT_CODES.has(error.code);
}

/** Milliseconds to wait after the `attempt`-th attempt failed. */
export function startBackoff(attempt, policy) {
  const ceiling = Math.min(policy.initialDelayMs * 2 ** (attempt - 1), policy.maxDelayMs);
  return Math.random() * ceiling;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Gives a start message without a request id a new one (in place). */
export function withRequestId(message) {
  if (!message.requestId) message.requestId = randomUUID();
  return message;
}

/** The interceptor of CreateRun, Automate and Research: request ids and retries. */
export function idempotentStarts(policy) {
  return (next) => async (request) => {
    const name = request.method.name;
    if (name === "CreateRun" && !request.stream) {
      withRequestId(request.message);
      return retried(() => next(request), policy, request.signal);
    }
    if (!STREAMING_STARTS.has(name)) return next(request);
    const messages = [];
    for await (const message of request.message) messages.push(withRequestId(message));
    const attempt = async () => firstArrived(await next({ ...request, message: iterate(messages) }));
    return retried(attempt, policy, request.signal);
  };
}

async function retried(attempt, policy, signal) {
  for (let made = 1; ; made++) {
    try {
      return await attempt();
    } catch (error) {
      if (!retriesStart(error, made, policy, signal)) throw error;
    }
    await sleep(startBackoff(made, policy));
  }
}

async function* iterate(items) {
  yield* items;
}

// A streaming start fails for a retry until its first message arrives: later, the run is known
// and its events are the caller's to follow.
async function firstArrived(response) {
  const messages = response.message[Symbol.asyncIterator]();
  const first = await messages.next();
  return { ...response, message: continued(first, messages) };
}

async function* continued(first, messages) {
  for (let next = first; !next.done; next = await messages.next()) yield next.value;
}

/** The responses of an Interact stream opened by `open(requests)`, opened again with the same
 * first messages while no response has arrived and the error is worth a retry. */
export async function* retriedInteraction(open, sent, policy, signal) {
  for (let made = 1; ; made++) {
    let answered = false;
    try {
      for await (const response of open(sent)) {
        answered = true;
        yield response;
      }
      return;
    } catch (error) {
      if (answered || !policy || !retriesStart(error, made, policy, signal)) throw error;
    }
    await sleep(startBackoff(made, policy));
  }
}
