/* The C++ peer of step_overhead.cc: TensorFlow's C API (libtensorflow_cc.so.2 in the
 * tensorflow-cpu wheel) running the same graph, y = x·W + b, with TF_SessionRun. With
 * inter_op_parallelism_threads = -1 its ops run on the caller's thread (no wake-up per
 * step), the path a small Session::Run here is compared with.
 *
 *   step_overhead_tf_capi [steps] [inter_op_threads]   (default 20000 -1)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tensorflow/c/c_api.h"

static void Check(TF_Status* s, const char* what) {
  if (TF_GetCode(s) != TF_OK) {
    fprintf(stderr, "step_overhead_tf_capi: %s: %s\n", what, TF_Message(s));
    exit(1);
  }
}

static void NoDealloc(void* data, size_t len, void* arg) {}

static TF_Operation* Const2(TF_Graph* g, TF_Status* s, const char* name, float* values, int64_t* dims, int ndims) {
  size_t bytes = sizeof(float);
  for (int i = 0; i < ndims; ++i) bytes *= (size_t)dims[i];
  TF_Tensor* t = TF_NewTensor(TF_FLOAT, dims, ndims, values, bytes, NoDealloc, NULL);
  TF_OperationDescription* d = TF_NewOperation(g, "Const", name);
  TF_SetAttrTensor(d, "value", t, s);
  Check(s, "Const value");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_Operation* op = TF_FinishOperation(d, s);
  Check(s, name);
  TF_DeleteTensor(t);
  return op;
}

static double Now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char** argv) {
  int steps = argc > 1 ? atoi(argv[1]) : 20000;
  int inter_op = argc > 2 ? atoi(argv[2]) : -1;
  TF_Status* s = TF_NewStatus();
  TF_Graph* g = TF_NewGraph();
  static float w_values[] = {1, 2, 3, 4}, b_values[] = {0.5f, -0.5f};
  int64_t w_dims[] = {2, 2}, b_dims[] = {2};
  TF_Operation* w = Const2(g, s, "W", w_values, w_dims, 2);
  TF_Operation* b = Const2(g, s, "b", b_values, b_dims, 1);
  TF_OperationDescription* d = TF_NewOperation(g, "Placeholder", "x");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_Operation* x = TF_FinishOperation(d, s);
  Check(s, "x");
  d = TF_NewOperation(g, "MatMul", "MatMul");
  TF_AddInput(d, (TF_Output){x, 0});
  TF_AddInput(d, (TF_Output){w, 0});
  TF_Operation* mm = TF_FinishOperation(d, s);
  Check(s, "MatMul");
  d = TF_NewOperation(g, "AddV2", "y");
  TF_AddInput(d, (TF_Output){mm, 0});
  TF_AddInput(d, (TF_Output){b, 0});
  TF_Operation* y = TF_FinishOperation(d, s);
  Check(s, "y");

  /* ConfigProto { intra_op_parallelism_threads: 1 (field 2), inter_op_parallelism_threads:
   * inter_op (field 5, an int32 varint: -1 is ten bytes) }, written by hand. */
  unsigned char config[16];
  size_t n = 0;
  config[n++] = 0x10;
  config[n++] = 0x01;
  config[n++] = 0x28;
  uint64_t v = (uint64_t)(int64_t)inter_op;
  do {
    unsigned char byte = v & 0x7f;
    v >>= 7;
    config[n++] = byte | (v ? 0x80 : 0);
  } while (v);
  TF_SessionOptions* opts = TF_NewSessionOptions();
  TF_SetConfig(opts, config, n, s);
  Check(s, "config");
  TF_Session* session = TF_NewSession(g, opts, s);
  Check(s, "session");

  static float x_values[] = {1, 1};
  int64_t x_dims[] = {1, 2};
  TF_Tensor* xv = TF_NewTensor(TF_FLOAT, x_dims, 2, x_values, sizeof x_values, NoDealloc, NULL);
  TF_Output feeds[] = {{x, 0}}, fetches[] = {{y, 0}};
  double start = 0;
  for (int i = -200; i < steps; ++i) {
    if (i == 0) start = Now();
    TF_Tensor* out = NULL;
    TF_SessionRun(session, NULL, feeds, &xv, 1, fetches, &out, 1, NULL, 0, NULL, s);
    Check(s, "run");
    TF_DeleteTensor(out);
  }
  double seconds = Now() - start;
  printf("tensorflow %s C API TF_SessionRun (inter_op %d): %8.1f us/step  (%.0f steps/s, %d steps)\n", TF_Version(),
         inter_op, 1e6 * seconds / steps, steps / seconds, steps);
  TF_DeleteTensor(xv);
  TF_CloseSession(session, s);
  TF_DeleteSession(session, s);
  TF_DeleteSessionOptions(opts);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  return 0;
}
