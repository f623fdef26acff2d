// The data plane: tensors between processes (RecvTensor, feeds, fetches) over a dedicated
// TCP stream as a Cap'n Proto header plus the raw bytes. DataPlaneServer serves a
// process's tensors; DataPlaneClient fetches other processes' (see their headers).
#ifndef TENSORACT_ACTORS_DATA_PLANE_H_
#define TENSORACT_ACTORS_DATA_PLANE_H_

#include "actors/data_plane/client.h"
#include "actors/data_plane/server.h"
#include "actors/data_plane/wire.h"

#endif  // TENSORACT_ACTORS_DATA_PLANE_H_
