// What the oneDNN kernels' stand-ins share in a build without oneDNN (onednn_conv.cc,
// onednn_matmul.cc): their weight cache is an empty class there. One definition here, so
// that a unity batch holding both files compiles.
#ifndef TENSORACT_KERNELS_CPU_ONEDNN_STUB_H_
#define TENSORACT_KERNELS_CPU_ONEDNN_STUB_H_

namespace tensoract {

class OnednnWeightCache {};

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_CPU_ONEDNN_STUB_H_
