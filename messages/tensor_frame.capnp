# Header of one tensor sent over tensoract's (future) data plane.
#
# Why Cap'n Proto for the header and nothing else: a tensor on the wire is a
# small header followed by its raw element bytes. The header is decoded in
# place with no parsing step, which keeps per-tensor overhead tiny. The
# element bytes are NOT put inside the Cap'n Proto message: they follow the
# header directly on the TCP stream, byteLength bytes of them, so the sender
# can write them straight from the tensor's buffer (writev/sendfile style) and
# the receiver can read them straight into a freshly allocated tensor buffer,
# with no copy into or out of a message arena and no size limit imposed by
# Cap'n Proto's traversal limits.
#
# Stream layout per tensor:
#   [Cap'n Proto message, standard stream framing: segment table + segments]
#   [byteLength raw bytes, unless the payload is inline in `data`]
#
# Wire-level numbering follows TensorFlow where it has one (dtype carries the
# tensorflow.DataType enum value from messages/types.proto).

@0x91d83afd419199b6;

struct TensorFrame {
  key @0 :Text;
  # Rendezvous key naming the transfer, in TensorFlow's format:
  # "src_device;src_incarnation_hex;dst_device;tensor_name;frame_id:iter_id".

  dtype @1 :UInt32;
  # tensorflow.DataType value of the elements (DT_FLOAT = 1, ...), as the
  # sender holds them in memory (before any lossy16 truncation).

  shape @2 :List(Int64);
  # Dimension sizes, outermost first; empty for a scalar. Always fully known
  # for a concrete tensor.

  lossy16 @3 :Bool;
  # The sender had DT_FLOAT elements and sent only the upper 16 bits of each
  # (bfloat16-like truncation) to halve the bytes on the wire. The receiver
  # widens each 16-bit value back to float32 by appending 16 zero bits; the
  # result differs from the original. Only meaningful with dtype DT_FLOAT.

  byteLength @4 :UInt64;
  # Number of raw bytes that follow this header on the stream (after any
  # lossy16 truncation). 0 when the payload is inline in `data` or when
  # isDead is set.

  isDead @5 :Bool;
  # The value is "dead" (produced on an untaken branch of Switch/Merge
  # control flow). No payload follows; shape/dtype are informative only.

  data @6 :Data;
  # Optional inline payload for small tensors, to save a separate write.
  # When set, byteLength is 0 and nothing follows the header on the stream.
}
