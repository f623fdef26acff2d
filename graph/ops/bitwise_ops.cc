// The bitwise ops on integers: and, or, xor, not, shifts and population count. Definitions
// match TensorFlow 2.21's bitwise_ops.cc (type lists in its order; PopulationCount always
// answers uint8, the count of set bits of each element's two's complement representation).
#include "graph/common_shape_fns.h"
#include "graph/op_registry.h"

using tensoract::shape_inference::BroadcastBinaryOpShape;
using tensoract::shape_inference::UnchangedShape;

#define TA_BITWISE_TYPES "T: {int8, int16, int32, int64, uint8, uint16, uint32, uint64}"

REGISTER_OP("Invert")
    .Input("x: T").Output("y: T")
    .Attr(TA_BITWISE_TYPES)
    .SetShapeFn(UnchangedShape)
    .Doc("Every bit of x flipped (~x), element-wise.");

REGISTER_OP("PopulationCount")
    .Input("x: T").Output("y: uint8")
    .Attr(TA_BITWISE_TYPES)
    .SetShapeFn(UnchangedShape)
    .Doc("The number of bits set in each element of x.");

REGISTER_OP("BitwiseAnd")
    .Input("x: T").Input("y: T").Output("z: T")
    .Attr(TA_BITWISE_TYPES)
    .SetIsCommutative()
    .SetShapeFn(BroadcastBinaryOpShape)
    .Doc("x & y, element-wise with broadcasting.");

REGISTER_OP("BitwiseOr")
    .Input("x: T").Input("y: T").Output("z: T")
    .Attr(TA_BITWISE_TYPES)
    .SetIsCommutative()
    .SetShapeFn(BroadcastBinaryOpShape)
    .Doc("x | y, element-wise with broadcasting.");

REGISTER_OP("BitwiseXor")
    .Input("x: T").Input("y: T").Output("z: T")
    .Attr(TA_BITWISE_TYPES)
    .SetIsCommutative()
    .SetShapeFn(BroadcastBinaryOpShape)
    .Doc("x ^ y, element-wise with broadcasting.");

REGISTER_OP("LeftShift")
    .Input("x: T").Input("y: T").Output("z: T")
    .Attr(TA_BITWISE_TYPES)
    .SetShapeFn(BroadcastBinaryOpShape)
    .Doc("x shifted left by y bits (y clamped to [0, bits - 1]), element-wise with broadcasting.");

REGISTER_OP("RightShift")
    .Input("x: T").Input("y: T").Output("z: T")
    .Attr(TA_BITWISE_TYPES)
    .SetShapeFn(BroadcastBinaryOpShape)
    .Doc("x shifted right by y bits (y clamped to [0, bits - 1]; arithmetic for signed x), element-wise with "
         "broadcasting.");

#undef TA_BITWISE_TYPES
