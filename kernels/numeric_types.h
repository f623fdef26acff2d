// C++ element types for the DataTypes that have no standard C++ type.
//
// Quantized and narrow types are stored, one element per storage unit, exactly as
// TensorFlow keeps them in memory; tensoract moves and serializes them but has no
// arithmetic on them yet. half and bfloat16 are Eigen's (see kernels/tensor_eigen.h).
#ifndef TENSORACT_KERNELS_NUMERIC_TYPES_H_
#define TENSORACT_KERNELS_NUMERIC_TYPES_H_

#include <complex>
#include <cstdint>

namespace Eigen {
struct half;
struct bfloat16;
}  // namespace Eigen

namespace tensoract {

using complex64 = std::complex<float>;
using complex128 = std::complex<double>;

// A storage wrapper: same size and bits as Rep, a distinct type for DataTypeToEnum.
template <class Rep, int Tag>
struct Stored {
  Rep value;
  bool operator==(const Stored& o) const { return value == o.value; }
  bool operator!=(const Stored& o) const { return value != o.value; }
};

using qint8 = Stored<int8_t, 11>;
using quint8 = Stored<uint8_t, 12>;
using qint32 = Stored<int32_t, 13>;
using qint16 = Stored<int16_t, 15>;
using quint16 = Stored<uint16_t, 16>;
using float8_e5m2 = Stored<uint8_t, 24>;
using float8_e4m3fn = Stored<uint8_t, 25>;
using float8_e4m3fnuz = Stored<uint8_t, 26>;
using float8_e4m3b11fnuz = Stored<uint8_t, 27>;
using float8_e5m2fnuz = Stored<uint8_t, 28>;
using int4 = Stored<int8_t, 29>;
using uint4 = Stored<uint8_t, 30>;
using int2 = Stored<int8_t, 31>;
using uint2 = Stored<uint8_t, 32>;
using float4_e2m1fn = Stored<uint8_t, 33>;

}  // namespace tensoract

#endif  // TENSORACT_KERNELS_NUMERIC_TYPES_H_
