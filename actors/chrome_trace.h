// Chrome trace-event JSON of a step's statistics, for Perfetto (ui.perfetto.dev) and
// chrome://tracing.
//
//   RunOptions options;
//   options.trace_level = RunOptions::FULL_TRACE;
//   RunMetadata metadata;
//   TA_RETURN_IF_ERROR(session->Run(options, feeds, fetches, {}, &outputs, &metadata));
//   TA_RETURN_IF_ERROR(WriteChromeTrace(metadata.step_stats, "/tmp/step.json"));
//
// The file is the Trace Event Format's object form,
// {"displayTimeUnit":"ns","otherData":{...},"traceEvents":[...]}:
// - one process per device: pid is the device's index among the distinct device names in
//   sorted order (so the numbering does not depend on which worker replied first), named by
//   "M" process_name / process_sort_index events;
// - one thread row per thread_id used on that device ("M" thread_name, from
//   DeviceStepStats.thread_names when it has one);
// - one "X" complete event per NodeExecStats: name = the node, cat = its op (parsed from the
//   timeline label "<node> = <Op>(<inputs>)"), args = name, op, inputs, outputs;
// - for every _Send whose label carries "key=<rendezvous key>" and the _Recv of the same
//   key, a flow ("s" inside the send, "f" with "bp":"e" inside the recv, cat "transfer",
//   named by the key's tensor name) so the viewers draw an arrow between the devices.
//
// Times are in microseconds with nanosecond fractions, RELATIVE to the earliest node start
// in `stats` (small numbers read better; otherData.ts_origin_nanos keeps the absolute
// origin). Several steps may be merged into one StepStats: repeated device names share a
// process, and repeated rendezvous keys pair in time order. Output is deterministic: the
// same StepStats gives the same bytes.
//
// Thread-safety: pure functions of their arguments.
#ifndef TENSORACT_ACTORS_CHROME_TRACE_H_
#define TENSORACT_ACTORS_CHROME_TRACE_H_

#include <string>

#include "base/status.h"
#include "messages/step_stats.pb.h"

namespace tensoract {

// The trace-event JSON of one step (or several, appended), as chrome://tracing and Perfetto read it.
std::string StepStatsToChromeTrace(const tensorflow::StepStats& stats);

// Writes StepStatsToChromeTrace(stats) to `path` (replacing it). Errors name the path.
Status WriteChromeTrace(const tensorflow::StepStats& stats, const std::string& path);

}  // namespace tensoract

#endif  // TENSORACT_ACTORS_CHROME_TRACE_H_
