# Header of one tensor sent over tensoract's data plane (actors/data_plane_*.h).
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
# Stream layout (actors/data_plane/wire.h). Client -> server: one
# RecvTensorRequest message per request. Server -> client: DataPlaneReply
# messages, each either
#   [frame: a TensorFrame][firstChunk raw bytes]            or
#   [chunk: a TensorChunk][length raw bytes]
# where every message uses standard stream framing (segment table +
# segments). A tensor's byteLength bytes are its frame's firstChunk bytes
# followed by its chunks, in offset order. Chunks of different requests may
# interleave, so a 4-byte reply never waits behind all of a 64 MB one.
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
  # Number of raw payload bytes (after any lossy16 truncation) that follow on
  # the stream: firstChunk of them right after this header, the rest in
  # TensorChunk messages. 0 when the payload is inline in `data` or when
  # isDead is set.

  isDead @5 :Bool;
  # The value is "dead" (produced on an untaken branch of Switch/Merge
  # control flow). No payload follows; shape/dtype are informative only.

  data @6 :Data;
  # Optional inline payload for small tensors (unused by the current sender,
  # which gathers header and payload into one write instead). When set,
  # byteLength is 0 and nothing follows the header on the stream.

  requestId @7 :UInt64;
  # The RecvTensorRequest this frame answers; replies come in any order.

  statusCode @8 :Int32;
  statusMessage @9 :Text;
  # A failed request: tensorflow.error.Code (0 = OK) and a message naming the
  # key. Nothing follows an error frame.

  firstChunk @10 :UInt64;
  # Raw payload bytes that follow this frame directly (at most byteLength);
  # the rest arrive in TensorChunk messages.

  encoded @11 :Bool;
  # The payload is not the elements' bytes but the tensor as a serialized
  # tensorflow.TensorProto (messages/tensor.proto): how strings, variants
  # (TensorLists, Optionals, in TensorFlow's encoding) and resource handles
  # travel, which have no flat bytes. Its dtype and shape must be the frame's;
  # the receiver takes at most TENSORACT_MAX_EXPANDED_TENSOR_BYTES (1 GiB)
  # of it.
}

struct TensorChunk {
  # A continuation of a tensor's payload: `length` raw bytes that
  # follow this message, to be placed at `offset` of the request's payload.
  requestId @0 :UInt64;
  offset @1 :UInt64;
  length @2 :UInt64;
}

struct DataPlaneReply {
  union {
    frame @0 :TensorFrame;
    chunk @1 :TensorChunk;
  }
}

struct RecvTensorRequest {
  requestId @0 :UInt64;
  # Chosen by the client, unique on its connection.
  stepId @1 :Int64;
  key @2 :Text;
  # Rendezvous key, as in TensorFrame.key.
  lossy16 @3 :Bool;
  # Send DT_FLOAT payloads truncated to their upper 16 bits.
}
