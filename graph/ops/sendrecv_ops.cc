// _Send and _Recv: the two halves of a tensor crossing from one device to another.
//
// The partitioner (graph/partition.h) cuts every cross-device edge into a _Send on the
// producer's device and a _Recv on the consumer's; the pair meets in the rendezvous under
// the key graph/rendezvous_key.h builds from these attrs. Both are stateful so that no pass
// merges, folds or prunes them as if they were pure functions of their inputs.
#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

REGISTER_OP("_Send")
    .Input("tensor: T")
    .Attr("T: type")
    .Attr("tensor_name: string")
    .Attr("send_device: string")
    .Attr("send_device_incarnation: int")
    .Attr("recv_device: string")
    .Attr("client_terminated: bool = false")
    .SetIsStateful()
    .SetShapeFn(tensoract::shape_inference::NoOutputs)
    .Doc("Sends `tensor` to recv_device under the rendezvous key its attrs make.");

// The receiver cannot know the shape: it is whatever arrives.
REGISTER_OP("_Recv")
    .Output("tensor: tensor_type")
    .Attr("tensor_type: type")
    .Attr("tensor_name: string")
    .Attr("send_device: string")
    .Attr("send_device_incarnation: int")
    .Attr("recv_device: string")
    .Attr("client_terminated: bool = false")
    .SetIsStateful()
    .SetIsDistributedCommunication()  // it waits on another device or process
    .SetShapeFn(tensoract::shape_inference::UnknownShape)
    .Doc("Receives the tensor sent from send_device under the rendezvous key its attrs make.");
