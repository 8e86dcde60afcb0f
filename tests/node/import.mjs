// import.mjs TRACE.json - load a kprof trace.json with Chrome DevTools'
// trace engine (@paulirish/trace_engine, pinned in package.json) as the
// DevTools performance panel does, and print what it kept as one JSON
// object on stdout:
//   {"tracks": {"pid/tid": {"name": ..., "entries": N, "kept": K}, ...},
//    "flows": F, "warnings": [...], "console": [...]}
// "entries" are the complete events the engine took for the track, "kept"
// those it placed in the track's tree (an event that partly overlaps
// another is left out there, and never drawn); "flows" the flow arrows
// whose both ends it bound to a slice; "warnings" the engine's own
// (Warnings handler), "console" anything it wrote with console.warn or
// console.error.  tests/tools/test_perfetto_import compares them with the
// file and with the records.  Exit 0 unless the engine could not parse.
import fs from 'node:fs';
import * as Trace from '@paulirish/trace_engine';

// The engine uses DOMRect, which Node lacks (its README says so).
globalThis.DOMRect ??= class DOMRect {
  constructor(x = 0, y = 0, width = 0, height = 0) {
    Object.assign(this, {x, y, width, height});
  }
};

const said = [];
for (const level of ['warn', 'error']) {
  console[level] = (...args) => said.push(args.map(String).join(' '));
}

const doc = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const model = Trace.TraceModel.Model.createWithAllHandlers();
await model.parse(doc.traceEvents);
const data = model.parsedTrace().data;

const kept = new Map();
for (const [event] of data.Renderer.entryToNode) {
  const key = `${event.pid}/${event.tid}`;
  kept.set(key, (kept.get(key) ?? 0) + 1);
}
const tracks = {};
for (const [pid, proc] of data.Renderer.processes) {
  for (const [tid, thread] of proc.threads) {
    const key = `${pid}/${tid}`;
    tracks[key] = {name: thread.name ?? null, entries: thread.entries.length, kept: kept.get(key) ?? 0};
  }
}
const warnings = [];
for (const [kind, events] of data.Warnings.perWarning) {
  warnings.push(`${kind}: ${events.length}`);
}
process.stdout.write(JSON.stringify({tracks, flows: data.Flows.flows.length, warnings, console: said}) + '\n');
