#!/usr/bin/env python3
"""Writes tests/data/tf_op_defs.pbtxt: TensorFlow's own OpDefs (docs stripped) for every op
this project registers or will register (the issues' op lists), as one OpList in text form.

    python3 tests/graph/write_tf_op_defs.py > tests/data/tf_op_defs.pbtxt

tests/graph/tf_op_defs_test.cc checks every op in our registry against this file, so a
newly registered op needs no test edit as long as its name is here; add names below (and
rerun) for ops not yet listed.
"""
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402  (only the generator needs TensorFlow)
from google.protobuf import text_format  # noqa: E402
from tensorflow.core.framework import op_def_pb2  # noqa: E402
from tensorflow.python.framework import op_def_registry  # noqa: E402

OPS = """
Const Placeholder PlaceholderWithDefault Identity IdentityN Snapshot NoOp _Arg _Retval
PartitionedCall StatefulPartitionedCall
Add AddV2 Sub Mul Div RealDiv DivNoNan FloorDiv FloorMod Maximum Minimum Pow SquaredDifference
Neg Abs Sign Square Sqrt Rsqrt Reciprocal Exp Log Log1p Tanh Sigmoid Floor Ceil Round
Greater GreaterEqual Less LessEqual Equal NotEqual LogicalAnd LogicalOr LogicalNot
Select SelectV2 Cast AddN
TanhGrad SigmoidGrad SqrtGrad RsqrtGrad ReciprocalGrad
Sum Mean Max Min Prod All Any ArgMax ArgMin UnsortedSegmentSum
UnsortedSegmentMax UnsortedSegmentMin UnsortedSegmentProd SegmentSum SegmentMean SegmentMax SegmentMin
SegmentProd Expm1
Reshape Shape ShapeN Size Rank ExpandDims Squeeze ConcatV2 Split SplitV Slice StridedSlice
StridedSliceGrad Pack Unpack Tile Transpose Fill ZerosLike OnesLike Range GatherV2 OneHot
Pad PadV2 BroadcastTo BroadcastGradientArgs StopGradient PreventGradient InvertPermutation
MatMul BatchMatMulV2 MatrixInverse MatrixDeterminant
Relu Relu6 Elu Softplus Softmax LogSoftmax SoftmaxCrossEntropyWithLogits
SparseSoftmaxCrossEntropyWithLogits BiasAdd BiasAddGrad Conv2D MaxPool AvgPool _FusedConv2D _MklNativeFusedConv2D _FusedMatMul _FusedDepthwiseConv2dNative _MklLayerNorm
ReluGrad Relu6Grad EluGrad SoftplusGrad Conv2DBackpropInput Conv2DBackpropFilter MaxPoolGrad
AvgPoolGrad MaxPoolGradGrad MaxPoolV2 MaxPoolGradV2 MaxPoolGradGradV2
RandomUniform RandomUniformInt RandomStandardNormal TruncatedNormal RandomShuffle
SaveV2 RestoreV2 MergeV2Checkpoints
ApplyGradientDescent ApplyMomentum ApplyAdam ResourceApplyGradientDescent
ResourceApplyMomentum ResourceApplyAdam
Variable VariableV2 Assign AssignAdd AssignSub IsVariableInitialized
VarHandleOp ReadVariableOp AssignVariableOp AssignAddVariableOp AssignSubVariableOp
VarIsInitializedOp DestroyResourceOp
_Send _Recv _HostSend _HostRecv
Switch RefSwitch Merge RefMerge Enter RefEnter Exit RefExit NextIteration RefNextIteration
LoopCond ControlTrigger StackV2 StackPushV2 StackPopV2 StackCloseV2
TensorArrayV3 TensorArrayWriteV3 TensorArrayReadV3 TensorArrayGatherV3 TensorArrayScatterV3 TensorArrayConcatV3
TensorArraySplitV3 TensorArraySizeV3 TensorArrayCloseV3 TensorArrayGradV3
FIFOQueueV2 PaddingFIFOQueueV2 RandomShuffleQueueV2 PriorityQueueV2 QueueEnqueueV2 QueueEnqueueManyV2
QueueDequeueV2 QueueDequeueManyV2 QueueDequeueUpToV2 QueueCloseV2 QueueIsClosedV2 QueueSizeV2
FixedLengthRecordReaderV2 TFRecordReaderV2 WholeFileReaderV2 TextLineReaderV2 ReaderReadV2
ReaderReadUpToV2 ReaderNumRecordsProducedV2 ReaderNumWorkUnitsCompletedV2 ReaderResetV2
DecodeRaw CountUpTo ResourceCountUpTo ScalarSummary Assert ParseExample ParseExampleV2 ParseSingleExample
SerializeTensor ParseTensor
HistogramSummary ImageSummary TensorSummaryV2 MergeSummary SummaryWriter CreateSummaryFileWriter
WriteScalarSummary WriteHistogramSummary WriteImageSummary WriteSummary WriteRawProtoSummary FlushSummaryWriter
CloseSummaryWriter
StringJoin StaticRegexFullMatch RegexFullMatch ShardedFilename ShardedFilespec DisableCopyOnRead ReadFile WriteFile
Where ReverseV2 TopKV2 Cumsum Cumprod MirrorPad MirrorPadGrad Gather ClipByValue
DynamicStitch ParallelDynamicStitch ListDiff ConcatOffset GatherNd ScatterNd
LeakyRelu LeakyReluGrad Selu SeluGrad Erf Erfc Sin Cos Atan2 TruncateDiv L2Loss IsNan IsInf IsFinite
Tan Asin Acos Atan Sinh Cosh Asinh Acosh Atanh Inv InvGrad MulNoNan Xdivy Xlogy Xlog1py Softsign SoftsignGrad Rint
If StatelessIf While StatelessWhile BatchMatMul BatchMatMulV3 FusedBatchNormV3 FusedBatchNormGradV3
FusedBatchNorm FusedBatchNormV2 FusedBatchNormGrad FusedBatchNormGradV2
DepthwiseConv2dNative DepthwiseConv2dNativeBackpropInput DepthwiseConv2dNativeBackpropFilter Einsum
StatelessRandomUniform StatelessRandomNormal StatelessTruncatedNormal StatelessRandomUniformInt
StatelessRandomUniformFullInt StatelessRandomGetKeyCounter StatelessRandomGetAlg StatelessRandomGetKeyCounterAlg
StatelessRandomUniformV2 StatelessRandomNormalV2 StatelessTruncatedNormalV2 StatelessRandomUniformIntV2
StatelessRandomUniformFullIntV2 StatelessMultinomial RandomPoissonV2 StatelessRandomPoisson
BitwiseAnd BitwiseOr BitwiseXor Invert LeftShift RightShift PopulationCount
EmptyTensorList TensorListReserve TensorListPushBack TensorListPopBack TensorListSetItem TensorListGetItem
TensorListStack TensorListFromTensor TensorListLength TensorListElementShape TensorListGather
TensorListScatterIntoExistingList TensorListResize TensorListConcat TensorListConcatV2 TensorListSplit
TensorListScatter TensorListScatterV2 TensorListPushBackBatch TensorListConcatLists
OptionalFromValue OptionalNone OptionalGetValue OptionalHasValue
CollectiveReduceV2 CollectiveGatherV2 CollectiveBcastSendV2 CollectiveBcastRecvV2
ResourceConditionalAccumulator ResourceAccumulatorApplyGradient ResourceAccumulatorTakeGradient
ResourceAccumulatorNumAccumulated ResourceAccumulatorSetGlobalStep
SpaceToBatchND BatchToSpaceND SpaceToDepth DepthToSpace Roll ReverseSequence Reverse Concat BroadcastArgs
MatrixBandPart Diag DiagPart MatrixDiag MatrixDiagV3 MatrixDiagPart MatrixDiagPartV3 MatrixSetDiag MatrixSetDiagV3
LinSpace Bincount Unique UniqueV2 DynamicPartition
Complex Real Imag Conj Mod TruncateMod ApproximateEqual EuclideanNorm CheckNumerics CheckNumericsV2
Bitcast BiasAddV1 InTopKV2 SparseToDense
TensorScatterUpdate TensorScatterAdd TensorScatterSub TensorScatterMax TensorScatterMin
Ndtri Erfinv Lgamma Digamma Polygamma Zeta Igamma Igammac IgammaGradA RandomGammaGrad Betainc Case StatelessCase Conv3D Conv3DBackpropInputV2 Conv3DBackpropFilterV2 MaxPool3D MaxPool3DGrad AvgPool3D AvgPool3DGrad VariableShape
LRN LRNGrad
ResizeBilinear ResizeBilinearGrad ResizeNearestNeighbor ResizeNearestNeighborGrad CumulativeLogsumexp DenseBincount
Cholesky MatrixTriangularSolve MatrixSolve Qr SelfAdjointEigV2 Svd
""".split()


def strip_docs(op):
    op.ClearField("summary")
    op.ClearField("description")
    for arg in list(op.input_arg) + list(op.output_arg):
        arg.ClearField("description")
    for attr in op.attr:
        attr.ClearField("description")
    return op


def main():
    ops = op_def_pb2.OpList()
    missing = []
    for name in OPS:
        d = op_def_registry.get(name)
        if d is None:
            missing.append(name)
            continue
        op = ops.op.add()
        op.CopyFrom(d)
        strip_docs(op)
    if missing:
        print("not in TensorFlow %s: %s" % (tf.__version__, " ".join(missing)), file=sys.stderr)
    print("# TensorFlow %s's OpDefs (docs stripped), written by tests/graph/write_tf_op_defs.py." % tf.__version__)
    print(text_format.MessageToString(ops), end="")


if __name__ == "__main__":
    main()
