/**
 * Event histories to and from the JSON that Temporal's tools write (proto3 JSON: what
 * `temporal workflow show --output json` and the SDK's historyToJSON produce).
 *
 * Why not the SDK's own historyToJSON / historyFromJSON (@temporalio/common/lib/proto-utils)? In this
 * install @temporalio/common and @temporalio/proto each carry their own copy of protobufjs 8 (the root
 * holds protobufjs 7 for grpc's proto-loader, so npm cannot dedupe them), and those functions hand
 * @temporalio/proto's message types to @temporalio/common's protojson, which refuses them ("type must be
 * a Type"). The same conversion with the protojson of the copy that @temporalio/proto was built with
 * works, whichever way npm lays the packages out.
 */
import { dirname } from 'node:path';
import * as proto from '@temporalio/proto';
import { patchProtobufRoot } from '@temporalio/proto/lib/patch-protobuf-root';

export type History = proto.temporal.api.history.v1.IHistory;

interface ProtoJson {
  toJson(type: unknown, message: unknown): unknown;
  fromJson(type: unknown, json: unknown, options?: { ignoreUnknownFields?: boolean }): unknown;
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
const protojson = require(
  require.resolve('protobufjs/ext/protojson', { paths: [dirname(require.resolve('@temporalio/proto/package.json'))] }),
) as ProtoJson;
const historyType = (patchProtobufRoot(proto) as unknown as { lookupType(name: string): unknown }).lookupType(
  'temporal.api.history.v1.History',
);

/** A fetched history (handle.fetchHistory()) as proto3 JSON, one field per line. */
export function historyToJSON(history: History): string {
  const json = protojson.toJson(historyType, proto.temporal.api.history.v1.History.fromObject(history));
  return `${JSON.stringify(json, null, 1)}\n`;
}

/** A history parsed from such JSON, ready for Worker.runReplayHistories (unknown fields of newer servers ignored). */
export function historyFromJSON(json: unknown): History {
  return protojson.fromJson(historyType, json, { ignoreUnknownFields: true }) as History;
}
