// Runs one piece of code for the C++ element type of a run-time DataType.
//
//   TA_SWITCH_FIXED_SIZE_TYPES(t.dtype(), return errors::Unimplemented(...),
//                              Fill<T>(t));
//
// Inside the statements, T is the element type. Only for .cc files: it pulls in Eigen's
// half and bfloat16.
#ifndef TENSORACT_KERNELS_DTYPE_DISPATCH_H_
#define TENSORACT_KERNELS_DTYPE_DISPATCH_H_

#include <Eigen/Core>

#include "kernels/tensor.h"

// m(T); for every number type TensorFlow's kernels commonly register (its
// TF_CALL_NUMBER_TYPES): the kernel registrations of one op for all of them.
#define TA_CALL_NUMBER_TYPES(m)                                                          \
  m(float);                                                                             \
  m(double);                                                                            \
  m(Eigen::half);                                                                       \
  m(Eigen::bfloat16);                                                                   \
  m(int8_t);                                                                            \
  m(int16_t);                                                                           \
  m(int32_t);                                                                           \
  m(int64_t);                                                                           \
  m(uint8_t);                                                                           \
  m(uint16_t);                                                                          \
  m(uint32_t);                                                                          \
  m(uint64_t);                                                                          \
  m(complex64);                                                                         \
  m(complex128)

#define TA_DTYPE_CASE(ENUM, TYPE, ...) \
  case ::tensorflow::ENUM: {           \
    using T = TYPE;                    \
    __VA_ARGS__;                       \
    break;                             \
  }

// Every type stored as fixed-size elements.
#define TA_SWITCH_FIXED_SIZE_TYPES(dtype, DEFAULT, ...)                              \
  switch (dtype) {                                                                  \
    TA_DTYPE_CASE(DT_FLOAT, float, __VA_ARGS__)                                     \
    TA_DTYPE_CASE(DT_DOUBLE, double, __VA_ARGS__)                                   \
    TA_DTYPE_CASE(DT_INT32, int32_t, __VA_ARGS__)                                   \
    TA_DTYPE_CASE(DT_UINT32, uint32_t, __VA_ARGS__)                                 \
    TA_DTYPE_CASE(DT_UINT8, uint8_t, __VA_ARGS__)                                   \
    TA_DTYPE_CASE(DT_UINT16, uint16_t, __VA_ARGS__)                                 \
    TA_DTYPE_CASE(DT_INT16, int16_t, __VA_ARGS__)                                   \
    TA_DTYPE_CASE(DT_INT8, int8_t, __VA_ARGS__)                                     \
    TA_DTYPE_CASE(DT_COMPLEX64, ::tensoract::complex64, __VA_ARGS__)                \
    TA_DTYPE_CASE(DT_COMPLEX128, ::tensoract::complex128, __VA_ARGS__)              \
    TA_DTYPE_CASE(DT_INT64, int64_t, __VA_ARGS__)                                   \
    TA_DTYPE_CASE(DT_UINT64, uint64_t, __VA_ARGS__)                                 \
    TA_DTYPE_CASE(DT_BOOL, bool, __VA_ARGS__)                                       \
    TA_DTYPE_CASE(DT_QINT8, ::tensoract::qint8, __VA_ARGS__)                        \
    TA_DTYPE_CASE(DT_QUINT8, ::tensoract::quint8, __VA_ARGS__)                      \
    TA_DTYPE_CASE(DT_QINT16, ::tensoract::qint16, __VA_ARGS__)                      \
    TA_DTYPE_CASE(DT_QUINT16, ::tensoract::quint16, __VA_ARGS__)                    \
    TA_DTYPE_CASE(DT_QINT32, ::tensoract::qint32, __VA_ARGS__)                      \
    TA_DTYPE_CASE(DT_HALF, Eigen::half, __VA_ARGS__)                                \
    TA_DTYPE_CASE(DT_BFLOAT16, Eigen::bfloat16, __VA_ARGS__)                        \
    TA_DTYPE_CASE(DT_FLOAT8_E5M2, ::tensoract::float8_e5m2, __VA_ARGS__)            \
    TA_DTYPE_CASE(DT_FLOAT8_E4M3FN, ::tensoract::float8_e4m3fn, __VA_ARGS__)        \
    TA_DTYPE_CASE(DT_FLOAT8_E4M3FNUZ, ::tensoract::float8_e4m3fnuz, __VA_ARGS__)    \
    TA_DTYPE_CASE(DT_FLOAT8_E4M3B11FNUZ, ::tensoract::float8_e4m3b11fnuz, __VA_ARGS__) \
    TA_DTYPE_CASE(DT_FLOAT8_E5M2FNUZ, ::tensoract::float8_e5m2fnuz, __VA_ARGS__)    \
    TA_DTYPE_CASE(DT_FLOAT4_E2M1FN, ::tensoract::float4_e2m1fn, __VA_ARGS__)        \
    TA_DTYPE_CASE(DT_INT4, ::tensoract::int4, __VA_ARGS__)                          \
    TA_DTYPE_CASE(DT_UINT4, ::tensoract::uint4, __VA_ARGS__)                        \
    TA_DTYPE_CASE(DT_INT2, ::tensoract::int2, __VA_ARGS__)                          \
    TA_DTYPE_CASE(DT_UINT2, ::tensoract::uint2, __VA_ARGS__)                        \
    default: {                                                                      \
      DEFAULT;                                                                      \
    }                                                                               \
  }

// Every type a Tensor holds: the fixed-size ones and std::string.
#define TA_SWITCH_ALL_TYPES(dtype, DEFAULT, ...)                      \
  if ((dtype) == ::tensorflow::DT_STRING) {                           \
    using T = std::string;                                            \
    __VA_ARGS__;                                                      \
  } else {                                                            \
    TA_SWITCH_FIXED_SIZE_TYPES(dtype, DEFAULT, __VA_ARGS__)           \
  }

#endif  // TENSORACT_KERNELS_DTYPE_DISPATCH_H_
