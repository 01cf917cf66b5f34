#!/usr/bin/env node
// Outrider from Node.js: start an interactive browser run on the bidirectional Interact stream,
// answer the agent's form-data request on the same stream, and print the final answer.
//
//   node interactive.js "log in to the demo shop" https://shop.example/login
//
// Environment:
//   OUTRIDER_TARGET    server address (default localhost:50051)
//   OUTRIDER_API_KEY   API key, when the server requires one
//   OUTRIDER_DATA      JSON object passed as the run's `data`
//   OUTRIDER_ANSWERS   JSON object of form values by field label or ref, e.g. {"Email": "me@x.org"}
//   OUTRIDER_TLS       "1" for TLS with the system's roots (implied by the next three)
//   OUTRIDER_CA_FILE   PEM CA to trust instead of the system's roots
//   OUTRIDER_CLIENT_CERT, OUTRIDER_CLIENT_KEY   PEM client certificate and key (mutual TLS)
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

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

function formAnswer(request, answers) {
  const fields = request.fields.map((field) => ({
    ref: field.ref,
    value: String(answers[field.label] ?? answers[field.ref] ?? ''),
  }));
  return { form_data: { request_id: request.request_id, fields } };
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

function main() {
  const [task = 'log in', url = ''] = process.argv.slice(2);
  const target = process.env.OUTRIDER_TARGET || 'localhost:50051';
  const data = JSON.parse(process.env.OUTRIDER_DATA || '{}');
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

  const call = client.Interact(metadata);
  let finalAnswer = null;
  let success = false;
  call.on('data', (response) => {
    if (response.answer_result) {
      const r = response.answer_result;
      console.log(`answer to ${r.interaction_id}: ${r.accepted ? 'accepted' : `refused (${r.reason})`}`);
      return;
    }
    const event = response.event;
    if (!event) return; // heartbeat
    console.log(`#${event.sequence} ${describe(event)}`);
    const automate = event.automate || {};
    if (automate.interactive_form_data_request) {
      const request = automate.interactive_form_data_request;
      console.log(`form requested: ${request.fields.map((f) => f.label || f.ref).join(', ')}`);
      call.write(formAnswer(request, answers));
    }
    if (automate.complete) {
      success = Boolean(automate.complete.success);
      finalAnswer = automate.complete.final_answer ?? null;
    }
  });
  call.on('end', () => {
    call.end();
    client.close();
    console.log(`final answer: ${finalAnswer}`);
    process.exitCode = success ? 0 : 1;
  });
  call.on('error', (error) => {
    console.error(`error: ${grpc.status[error.code]}: ${error.details}`);
    client.close();
    process.exitCode = 3;
  });

  call.write({
    start: {
      automate: { task, url, data: toStruct(data), interactive: true },
      options: {},
    },
  });
}

main();
