#include "client/eager_checkpoint.h"

#include "graph/builder/ops.h"
#include "kernels/resource_handle.h"

namespace tensoract {

StatusOr<Checkpoint> Checkpoint::New(EagerContext& ctx, const std::vector<Variable>& vars, SaverOptions options) {
  Scope g = Scope::NewRootScope();
  std::vector<Output> handles;
  for (const Variable& v : vars) {
    if (!v.handle.is_eager()) {
      return errors::InvalidArgument("Checkpoint: variable '", v.name(), "' is not an eager variable");
    }
    TA_ASSIGN_OR_RETURN(Tensor h, ValueOf(v.handle));
    const ResourceHandle& rh = *h.base<ResourceHandle>();
    ops::VarHandleOpAttrs attrs;
    attrs.container = rh.container();
    attrs.shared_name = rh.name();
    // Named as the variable, which is its name in the checkpoint.
    handles.push_back(ops::VarHandleOp(g.WithOpName(v.name()).WithDevice(rh.device()), v.dtype, v.shape, attrs));
  }
  TA_RETURN_IF_ERROR(g.status());
  Checkpoint c;
  options.write_meta_graph = false;  // as tf.train.Checkpoint: the graph here is only the Saver's
  TA_ASSIGN_OR_RETURN(Saver saver, Saver::New(g, handles, options));
  c.saver_ = std::make_shared<Saver>(std::move(saver));
  tensorflow::GraphDef def;
  TA_RETURN_IF_ERROR(g.ToGraphDef(&def));
  TA_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::New(ctx.server()));
  TA_RETURN_IF_ERROR(session->Create(def));
  c.session_ = std::move(session);
  return c;
}

StatusOr<std::string> Checkpoint::Save(const std::string& prefix, int64_t global_step) {
  return saver_->Save(*session_, prefix, global_step);
}

Status Checkpoint::Restore(const std::string& prefix) { return saver_->Restore(*session_, prefix); }

}  // namespace tensoract
