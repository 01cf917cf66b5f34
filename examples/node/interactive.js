#!/usr/bin/env node
// Outrider from Node.js: start an interactive browser run on the bidirectional Interact stream and
// handle every turn on the same stream: form-data requests, re-requests after the page rejected a
// value (interactive:form_data:error), approvals, declines and expiry. Prints the final answer.
//
//   node interactive.js "Log in to the Teapot Shop" http://127.0.0.1:8000/shop/login.html
//
// Environment:
//   OUTRIDER_TARGET    server address (default localhost:50051)
//   OUTRIDER_API_KEY   API key, when the server requires one
//   OUTRIDER_DATA      JSON object passed as the run's `data`
//   OUTRIDER_ANSWERS   form values by field label or ref, e.g. {"Email": "me@x.org"}; or a list of
//                      such objects, one per round (the page may reject a round's values and ask
//                      again; the last one repeats). A required field without a value declines.
//   OUTRIDER_APPROVE   what to answer approvals: "once", "always" or "no" (default "no": reject)
//   OUTRIDER_TRUSTED   comma-separated trusted hostnames (no approval needed there)
//   OUTRIDER_REQUEST_ID  the start's request id (a UUID; default: a new one). The start is sent
//                      again with it after UNAVAILABLE before any answer (up to 4 attempts,
//                      random backoff): the server then returns the run it may have started.
//   OUTRIDER_TLS       "1" for TLS with the system's roots (implied by the next three)
//   OUTRIDER_CA_FILE   PEM CA to trust instead of the system's roots
//   OUTRIDER_CLIENT_CERT, OUTRIDER_CLIENT_KEY   PEM client certificate and key (mutual TLS)
'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const START_ATTEMPTS = 4;
const PROTO_ROOT = process.env.OUTRIDER_PROTO_ROOT || path.resolve(__dirname, '..', '..', 'proto');
// google/protobuf/*.proto: the ones protobufjs ships (descriptor.proto for our custom options;
// struct and timestamp are built into protobufjs). OUTRIDER_PROTO_INCLUDE may add another folder,
// e.g. grpcio-tools' bundled _proto directory.
const INCLUDES = [PROTO_ROOT, path.dirname(require.resolve('protobufjs/package.json'))];
if (process.env.OUTRIDER_PROTO_INCLUDE) INCLUDES.push(process.env.OUTRIDER_PROTO_INCLUDE);

function loadServices() {
  const definition = protoLoader.loadSync(['outrider/v1/interaction_service.proto'], {
    includeDirs: INCLUDES,
    keepCase: true,
    longs: String,
    enums: String,
    defaults: false,
    oneofs: true,
  });
  return grpc.loadPackageDefinition(definition).outrider.v1;
}

// google.protobuf.Struct from a plain JSON value (protobufjs's bundled struct.proto is camelCase).
function toValue(value) {
  if (value === null) return { nullValue: 'NULL_VALUE' };
  if (Array.isArray(value)) return { listValue: { values: value.map(toValue) } };
  switch (typeof value) {
    case 'number': return { numberValue: value };
    case 'string': return { stringValue: value };
    case 'boolean': return { boolValue: value };
    default: return { structValue: toStruct(value) };
  }
}

function toStruct(object) {
  const fields = {};
  for (const [key, value] of Object.entries(object)) fields[key] = toValue(value);
  return { fields };
}

// The answer to a request (or a re-request): the round's values, or a decline when a required
// field has none.
function formAnswer(request, round) {
  const fields = [];
  for (const field of request.fields) {
    const value = round[field.label] ?? round[field.ref];
    if (value === undefined || value === '') {
      if (field.required) {
        console.log(`declining: no value for ${field.label || field.ref}`);
        return { form_data: { request_id: request.request_id, cancelled: true } };
      }
      continue;
    }
    fields.push({ ref: field.ref, value: String(value) });
  }
  return { form_data: { request_id: request.request_id, fields } };
}

function approvalAnswer(approval, mode) {
  const approve = mode === 'once' || mode === 'always';
  return {
    approval: {
      approval_id: approval.approval_id,
      decision: approve ? 'APPROVAL_DECISION_APPROVE' : 'APPROVAL_DECISION_REJECT',
      scope: mode === 'always' ? 'APPROVAL_SCOPE_ALWAYS' : 'APPROVAL_SCOPE_ONCE',
      reason: approve ? '' : 'refused by the Node example (set OUTRIDER_APPROVE=once to allow)',
    },
  };
}

// Plaintext unless TLS is asked for; a client certificate makes it mutual TLS.
function channelCredentials(env) {
  const read = (name) => (env[name] ? fs.readFileSync(env[name]) : null);
  const ca = read('OUTRIDER_CA_FILE');
  const cert = read('OUTRIDER_CLIENT_CERT');
  const key = read('OUTRIDER_CLIENT_KEY');
  if (!(env.OUTRIDER_TLS === '1' || ca || cert)) return grpc.credentials.createInsecure();
  return grpc.credentials.createSsl(ca, key, cert);
}

function describe(event) {
  const inner = event.automate;
  if (!inner) return event.payload;
  return inner.event;
}

// Handles the questions of a run: every request id is answered once, rounds advance on
// re-requests, and questions that close unanswered are reported.
class Turns {
  constructor(call, answers, approveMode) {
    this.call = call;
    this.rounds = Array.isArray(answers) ? answers : [answers];
    this.round = 0;
    this.approveMode = approveMode;
    this.answered = new Set();
  }

  values() {
    const values = this.rounds[Math.min(this.round, this.rounds.length - 1)] || {};
    this.round += 1;
    return values;
  }

  handle(event) {
    const automate = event.automate || {};
    if (automate.interactive_form_data_request) {
      const request = automate.interactive_form_data_request;
      console.log(`form requested: ${request.fields.map((f) => f.label || f.ref).join(', ')}`);
      this.answer(request.request_id, () => formAnswer(request, this.values()));
    } else if (automate.interactive_form_data_error) {
      const error = automate.interactive_form_data_error;
      for (const field of error.fields) {
        const problem = (error.field_errors || {})[field.ref];
        if (problem) console.log(`page rejected ${field.label || field.ref}: ${problem}`);
      }
      this.answer(error.request_id, () => formAnswer(error, this.values()));
    } else if (event.approval_requested) {
      const approval = event.approval_requested;
      console.log(`approval requested: ${approval.action} on ${approval.url} (${approval.reason})`);
      this.answer(approval.approval_id, () => approvalAnswer(approval, this.approveMode));
    } else if (event.input_resolved || event.approval_resolved) {
      const resolved = event.input_resolved || event.approval_resolved;
      if (resolved.source === 'RESOLUTION_SOURCE_EXPIRED') {
        console.log(`${resolved.request_id || resolved.approval_id} expired unanswered`);
      }
    }
  }

  answer(id, build) {
    if (this.answered.has(id)) return;
    this.answered.add(id);
    this.call.write(build());
  }
}

// Milliseconds before the next attempt of a start: random up to 0.2 s, 0.4 s, 0.8 s (full jitter,
// so clients that failed together do not come back together).
function startBackoff(attempt) {
  return Math.random() * Math.min(200 * 2 ** (attempt - 1), 5000);
}

function startMessage(task, url) {
  const data = JSON.parse(process.env.OUTRIDER_DATA || '{}');
  const trusted = (process.env.OUTRIDER_TRUSTED || '').split(',').filter(Boolean);
  return {
    start: {
      automate: { task, url, data: toStruct(data), interactive: true, trusted_hostnames: trusted },
      options: { omit_prompts: true },
      request_id: process.env.OUTRIDER_REQUEST_ID || crypto.randomUUID(),
    },
  };
}

function main() {
  const [task = 'log in', url = ''] = process.argv.slice(2);
  const target = process.env.OUTRIDER_TARGET || 'localhost:50051';
  const answers = JSON.parse(process.env.OUTRIDER_ANSWERS || '{}');
  const { InteractionService } = loadServices();
  const client = new InteractionService(target, channelCredentials(process.env), {
    'grpc.keepalive_time_ms': 30000,
    'grpc.keepalive_timeout_ms': 10000,
  });
  const metadata = new grpc.Metadata();
  if (process.env.OUTRIDER_API_KEY) {
    metadata.set('authorization', `Bearer ${process.env.OUTRIDER_API_KEY}`);
  }
  const start = startMessage(task, url);
  let finalAnswer = null;
  let success = false;

  // One attempt of the stream. Until the first answer, a failure may have left the run started
  // or not: the same start (same request id) is sent again, and returns the run if it was.
  function attempt(number) {
    const call = client.Interact(metadata);
    const turns = new Turns(call, answers, process.env.OUTRIDER_APPROVE || 'no');
    let heard = false;
    let failed = false; // grpc-js ends the stream after its error too
    call.on('data', (response) => {
      heard = true;
      if (response.answer_result) {
        const r = response.answer_result;
        console.log(`answer to ${r.interaction_id}: ${r.accepted ? 'accepted' : `refused (${r.reason})`}`);
        return;
      }
      const event = response.event;
      if (!event) return; // heartbeat
      console.log(`#${event.sequence} ${describe(event)}`);
      turns.handle(event);
      const complete = (event.automate || {}).complete;
      if (complete) {
        success = Boolean(complete.success);
        finalAnswer = complete.final_answer ?? (complete.error || {}).message ?? null;
      }
    });
    call.on('end', () => {
      if (failed) return;
      call.end();
      client.close();
      console.log(`${success ? 'final answer' : 'failed'}: ${finalAnswer}`);
      process.exitCode = success ? 0 : 1;
    });
    call.on('error', (error) => {
      failed = true;
      if (!heard && error.code === grpc.status.UNAVAILABLE && number < START_ATTEMPTS) {
        const delay = startBackoff(number);
        console.log(`start not answered (${error.details}); sending it again in ${Math.round(delay)} ms`);
        setTimeout(() => attempt(number + 1), delay);
        return;
      }
      console.error(`error: ${grpc.status[error.code]}: ${error.details}`);
      client.close();
      process.exitCode = 3;
    });
    call.write(start);
  }

  attempt(1);
}

main();
