import type { CallOptions, Client, Interceptor } from "@connectrpc/connect";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type {
  InteractRequestSchema,
  InteractResponse,
} from "./gen/outrider/v1/interaction_service_pb.js";
import { BrowserControlService } from "./gen/outrider/v1/browser_control_service_pb.js";
import { InteractionService } from "./gen/outrider/v1/interaction_service_pb.js";
import { RunService } from "./gen/outrider/v1/run_service_pb.js";

export { BrowserControlService } from "./gen/outrider/v1/browser_control_service_pb.js";
export { InteractionService } from "./gen/outrider/v1/interaction_service_pb.js";
export { RunService } from "./gen/outrider/v1/run_service_pb.js";

export interface OutriderClientOptions {
  /** The server, e.g. "http://localhost:50051" (gRPC over HTTP/2; https for TLS). */
  baseUrl: string;
  /** Sent as `authorization: Bearer <apiKey>` when the server requires API keys. */
  apiKey?: string;
  interceptors?: Interceptor[];
}

export interface OutriderClient {
  runs: Client<typeof RunService>;
  interactions: Client<typeof InteractionService>;
  /** A browser run's live screen and takeovers (watch, take over, send input, hand back). */
  browser: Client<typeof BrowserControlService>;
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
