// Device names as TensorFlow writes them, and partial names used as placement constraints.
//
// A full name says where a device is and which one it is:
//
//   /job:worker/replica:0/task:1/device:GPU:0
//
// Any part may be left out, and the result is a partial specification, a constraint a
// placer must satisfy: "/device:GPU:*" is any GPU, "/job:ps" any device of the ps job,
// "" no constraint at all. A "*" in place of a value is the same as leaving the part out.
// TensorFlow's legacy spellings are accepted as well: "/cpu:0", "/gpu:1", "/CPU:*", and
// the device types "cpu" and "gpu" are written as "CPU" and "GPU" in any case, since the
// devices call themselves that. Parts may come in any order and each starts with '/'.
//
//   ParsedDeviceName spec, dev;
//   ParseDeviceName("/device:GPU:*", &spec);
//   ParseDeviceName("/job:localhost/replica:0/task:0/device:GPU:1", &dev);
//   IsSpecification(spec, dev);  // true: dev is one of the devices spec allows
//
// Thread-safety: plain values and pure functions.
#ifndef TENSORACT_GRAPH_DEVICE_NAME_H_
#define TENSORACT_GRAPH_DEVICE_NAME_H_

#include <string>

#include "base/status.h"

namespace tensoract {

struct ParsedDeviceName {
  bool has_job = false;
  std::string job;
  bool has_replica = false;
  int replica = 0;
  bool has_task = false;
  int task = 0;
  bool has_type = false;
  std::string type;  // "CPU", "GPU", ...
  bool has_id = false;
  int id = 0;

  // True when nothing is constrained (the empty name).
  bool IsEmpty() const { return !has_job && !has_replica && !has_task && !has_type && !has_id; }
  bool operator==(const ParsedDeviceName& other) const;
  bool operator!=(const ParsedDeviceName& other) const { return !(*this == other); }
};

// Parses a full or partial name. False (and `out` unspecified) on anything else: a part
// without its leading '/', an unknown part, a negative or non-numeric index, a bad job or
// type name.
bool ParseDeviceName(const std::string& name, ParsedDeviceName* out);

// As ParseDeviceName, with an InvalidArgument that quotes `name` when it does not parse.
Status ParseDeviceSpec(const std::string& name, ParsedDeviceName* out);

// The canonical form: the parts present, in the order job, replica, task, device, as
// "/job:J/replica:R/task:T/device:TYPE:ID". A type without an id is "/device:TYPE:*", an id
// without a type "/device:*:ID". The empty name is "".
std::string DeviceNameString(const ParsedDeviceName& name);

// True when every part `pattern` has is present in `name` with the same value: `name` is
// one of the devices `pattern` allows. An empty pattern allows everything.
bool IsSpecification(const ParsedDeviceName& pattern, const ParsedDeviceName& name);

// True when all five parts are present: the name of one device.
bool IsCompleteName(const ParsedDeviceName& name);

// True when both names have the same job, replica and task (present and equal): their
// devices are in one process and share its memory and resources.
bool IsSameTask(const ParsedDeviceName& a, const ParsedDeviceName& b);

// Adds the parts of `other` to `target`: the constraint both express. Two different
// values for one part conflict, and that is an InvalidArgument naming both names. With
// `allow_soft_placement`, as in TensorFlow, a conflicting device type or id is dropped
// instead (the target keeps its job, replica and task but no longer asks for a particular
// type or id); conflicting jobs, replicas or tasks are errors either way.
Status MergeDeviceNames(ParsedDeviceName* target, const ParsedDeviceName& other, bool allow_soft_placement);

}  // namespace tensoract

#endif  // TENSORACT_GRAPH_DEVICE_NAME_H_
