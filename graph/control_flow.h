// Control flow in the dataflow graph: which loop (frame) every node runs in.
//
// TensorFlow 1.x builds conditionals and loops from five primitives (whitepaper section
// 4.4): Switch sends its data to one of two outputs and leaves the other dead; Merge
// forwards the first live input; Enter passes a value into a child frame (a loop), Exit
// passes it back out to the parent frame, and NextIteration passes it to the next
// iteration of the same frame. A frame is named by the Enter nodes' `frame_name` attr; the
// graph outside every loop is the root frame "".
//
// BuildControlFlowInfo walks the graph from its Source the way TensorFlow's executor
// does: a node is in the frame its inputs' values are in, where an Enter's output is in
// its child frame and an Exit's output in the parent of its own frame. A graph where that
// does not add up is malformed, and the error names the node:
//   - inputs from two frames ("node 'add' has inputs from different frames: ..."),
//   - an Exit or NextIteration outside every loop,
//   - one frame name entered from two different frames,
//   - a node no path from the Source reaches (a cycle without an Enter into it).
//
// The frames found here are static: at run time one frame instance exists per iteration
// of the parent frame that enters it (a nested loop runs once per outer iteration).
#ifndef TENSORACT_GRAPH_CONTROL_FLOW_H_
#define TENSORACT_GRAPH_CONTROL_FLOW_H_

#include <string>
#include <vector>

#include "base/status.h"
#include "graph/graph.h"

namespace tensoract {

// By the node's OpDef (so the whitepaper's alias "Leave" is an Exit); Ref variants
// included.
bool IsSwitch(const Node& n);
bool IsMerge(const Node& n);
bool IsEnter(const Node& n);
bool IsExit(const Node& n);
bool IsNextIteration(const Node& n);
bool IsLoopCond(const Node& n);
bool IsControlTrigger(const Node& n);
// Any of the above.
bool IsControlFlow(const Node& n);
// An Enter of a loop invariant (is_constant): its output is its input, in every iteration.
bool IsConstantEnter(const Node& n);
// The same test on a bare op name, for passes that hold NodeDefs.
bool IsControlFlowOp(const std::string& op);

struct ControlFlowInfo {
  struct Frame {
    std::string name;             // "" for the root frame
    int parent = -1;              // index into frames; -1 for the root
    int parallel_iterations = 1;  // from the first Enter into it
    std::vector<int> enters;      // node ids of the Enter nodes into this frame
  };
  std::vector<Frame> frames;  // frames[0] is the root
  std::vector<int> frame_of;  // by node id: the frame the node runs in (-1: Source/Sink)
  std::vector<int> enters;    // by node id: the frame an Enter node enters (-1: not an Enter)

  // The frame a node's outputs are in: the child frame for an Enter, the parent frame for
  // an Exit, else its own.
  int OutputFrame(const Node& n) const;
  bool HasLoops() const { return frames.size() > 1; }
};

// Fills `info` for every node of `graph` (see the top of this file for the errors).
Status BuildControlFlowInfo(const Graph& graph, ControlFlowInfo* info);

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_CONTROL_FLOW_H_
