/// @file
/// TensorFlow 2's object graph, used where a SavedModel's own Saver falls short.
///
/// tf.saved_model.save writes, besides the graph and its SaverDef, a SavedObjectGraph: the
/// saved objects (variables among them) and, for each concrete function, the objects its
/// captured inputs are bound to. The checkpoint holds the matching TrackableObjectGraph,
/// which names each object's checkpoint key. TensorFlow's Python loader restores through
/// them; its C++ loader (and TensorFlow Serving) only through the SaverDef. For most models
/// both agree, but in a Keras 3 model saved with tf.saved_model.save the serving function
/// captures the Keras variables while the Saver restores copies of them, so the SaverDef
/// alone leaves the captured ones uninitialised (TensorFlow's C++ loader then fails at the
/// first request with "Could not find variable ..."). RestoreCapturedVariables closes that
/// gap: every VarHandleOp a function call captures and the Saver does not restore gets its
/// value from the checkpoint key the object graphs name.
#ifndef TENSORACT_CLIENT_SAVED_OBJECT_GRAPH_H_
#define TENSORACT_CLIENT_SAVED_OBJECT_GRAPH_H_

#include <string>

#include "base/status.h"
#include "client/session.h"
#include "messages/meta_graph.pb.h"

namespace tensoract {

/// Gives every variable a function of `meta_graph` captures, and its Saver does not restore,
/// its value from the checkpoint at `variables_prefix`, by running restore nodes in `session`.
/// Does nothing (OK) for a MetaGraphDef without an object graph (TensorFlow 1's) or when
/// the Saver restores every captured variable. A checkpoint key the object graph names but
/// the checkpoint lacks is NotFound naming both.
Status RestoreCapturedVariables(Session& session, const tensorflow::MetaGraphDef& meta_graph,
                                const std::string& variables_prefix);

}  // namespace tensoract

#endif  // TENSORACT_CLIENT_SAVED_OBJECT_GRAPH_H_
