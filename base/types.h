// DataType helpers that need no C++ element type: names, sizes, reference variants.
//
// The enum itself is TensorFlow's (messages/types.proto). The mapping from C++ element
// types to DataType lives with Tensor in kernels/tensor_types.h, because it needs Eigen.
#ifndef TENSORACT_BASE_TYPES_H_
#define TENSORACT_BASE_TYPES_H_

#include <string>
#include <vector>

#include "base/status.h"
#include "messages/types.pb.h"

namespace tensoract {

using DataType = ::tensorflow::DataType;
using DataTypeVector = std::vector<DataType>;

// TensorFlow's short names: "float", "int32", "float_ref", "string".
std::string DataTypeString(DataType dt);
// Parses the short names above (and "DT_FLOAT" style enum names).
bool DataTypeFromString(const std::string& name, DataType* dt);

bool IsRefType(DataType dt);
DataType BaseType(DataType dt);     // float_ref -> float
DataType MakeRefType(DataType dt);  // float -> float_ref

// Bytes per element for fixed-size types; 0 for string, resource, variant and invalid.
int DataTypeSize(DataType dt);
// True for every type Tensor stores in a flat buffer of DataTypeSize bytes per element.
bool DataTypeIsFixedSize(DataType dt);

// "[float, int32]".
std::string DataTypeVectorString(const DataTypeVector& v);

}  // namespace tensoract

#endif  // TENSORACT_BASE_TYPES_H_
