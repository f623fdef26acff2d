/// @file
/// A traced Function written as a SavedModel, as TensorFlow 2 exports a tf.function:
///
/// @code
///   Function scale(*ctx, "scale", body, {{{DT_FLOAT, PartialTensorShape({-1, 3})}}});
///   TA_RETURN_IF_ERROR(SaveFunction(*ctx, scale, {x}, "/models/scale/1"));
/// @endcode
///
/// The SavedModel's "serve" graph is the function's trace for `args` (its input signature
/// when it has one), with a Saver for the variables the trace reads; its signature has the
/// inputs "args_<i>" and the outputs "output_<i>". The variables' current values are saved
/// from the context. TensorFlow 2.21 loads it with tf.saved_model.load and with
/// tf.compat.v1.saved_model.load; tensoract with LoadSavedModel (client/saved_model.h).
#ifndef TENSORACT_CLIENT_FUNCTION_EXPORT_H_
#define TENSORACT_CLIENT_FUNCTION_EXPORT_H_

#include <string>
#include <vector>

#include "base/status.h"
#include "client/eager_context.h"
#include "client/function.h"
#include "client/saved_model.h"

namespace tensoract {

/// Writes `function`'s trace for `args` to `export_dir` as a SavedModel tagged "serve",
/// whose signature `signature_key` feeds `args_<i>` and fetches `output_<i>`, with the
/// current values of the variables the trace reads.
Status SaveFunction(EagerContext& ctx, Function& function, const std::vector<FunctionArg>& args,
                    const std::string& export_dir, const std::string& signature_key = kDefaultServingSignatureDefKey);

}  // namespace tensoract

#endif  // TENSORACT_CLIENT_FUNCTION_EXPORT_H_
