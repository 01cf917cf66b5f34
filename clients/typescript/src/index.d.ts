import type { CallOptions, Client, Interceptor } from "@connectrpc/connect";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type {
  InteractRequestSchema,
  InteractResponse,
} from "./gen/outrider/v1/interaction_service_pb.js";
import { BrowserControlService } from "./gen/outrider/v1/browser_control_service_pb.js";
import { CredentialService } from "./gen/outrider/v1/credential_service_pb.js";
import { InteractionService } from "./gen/outrider/v1/interaction_service_pb.js";
import { ProfileService } from "./gen/outrider/v1/profile_service_pb.js";
import { RunService } from "./gen/outrider/v1/run_service_pb.js";
import { SessionService } from "./gen/outrider/v1/session_service_pb.js";

export { BrowserControlService } from "./gen/outrider/v1/browser_control_service_pb.js";
export { CredentialService } from "./gen/outrider/v1/credential_service_pb.js";
export { InteractionService } from "./gen/outrider/v1/interaction_service_pb.js";
export { ProfileService } from "./gen/outrider/v1/profile_service_pb.js";
export { RunService } from "./gen/outrider/v1/run_service_pb.js";
export { SessionService } from "./gen/outrider/v1/session_service_pb.js";

/** How a start that got UNAVAILABLE (or lost its connection before its first answer) is sent
 * again with the same request id: attempts in all, and the ceiling of the random wait after the
 * first failure, doubling after each, never above `maxDelayMs`. */
export interface StartRetry {
  maxAttempts: number;
  initialDelayMs: number;
  maxDelayMs: number;
}

/** 4 attempts, waits of up to 0.2 s, 0.4 s, 0.8 s (full jitter), at most 5 s. */
export declare const defaultStartRetry: Readonly<StartRetry>;

export interface OutriderClientOptions {
  /** The server, e.g. "http://localhost:50051" (gRPC over HTTP/2; https for TLS). */
  baseUrl: string;
  /** Sent as `authorization: Bearer <apiKey>` when the server requires API keys. */
  apiKey?: string;
  interceptors?: Interceptor[];
  /** Starts (createRun, automate, research, an Interact start) get a new request id unless they
   * carry one, and are sent again with it as this says; `false`: neither. */
  startRetry?: StartRetry | false;
}

export interface OutriderClient {
  runs: Client<typeof RunService>;
  interactions: Client<typeof InteractionService>;
  /** A browser run's live screen and takeovers (watch, take over, send input, hand back). */
  browser: Client<typeof BrowserControlService>;
  /** Sessions: a browser (or a research thread) kept between runs; a run joins one with
   * `options: { session: "sessions/<id>" }`. */
  sessions: Client<typeof SessionService>;
  /** The tenant's profiles: saved browser state runs start from (metadata only). */
  profiles: Client<typeof ProfileService>;
  /** The tenant's credentials: set (write-only), list, delete, and their audit trail. */
  credentials: Client<typeof CredentialService>;
  /** What `openInteraction` retries starts with; null when turned off. */
  startRetry: StartRetry | null;
}

export declare function createOutriderClient(options: OutriderClientOptions): OutriderClient;

/** One message the caller writes on the Interact stream. */
export type InteractAction = MessageInitShape<typeof InteractRequestSchema>;

export interface Interaction {
  responses: AsyncIterable<InteractResponse>;
  send(action: InteractAction): void;
  close(): void;
}

export declare function openInteraction(
  client: OutriderClient,
  first: InteractAction,
  callOptions?: CallOptions,
): Interaction;
