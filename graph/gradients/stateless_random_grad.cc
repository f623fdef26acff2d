// The stateless random ops have no gradient: their outputs do not depend differentiably on
// the shape, seed, key, counter or bounds. TensorFlow's stateless_random_ops.py marks the
// same ops NotDifferentiable (and not StatelessRandomGetKeyCounter and its kin, whose
// inputs are integers).
#include "graph/gradients/gradient_registry.h"

namespace tensoract {

REGISTER_NO_GRADIENT_OP("StatelessRandomUniform");
REGISTER_NO_GRADIENT_OP("StatelessRandomNormal");
REGISTER_NO_GRADIENT_OP("StatelessTruncatedNormal");
REGISTER_NO_GRADIENT_OP("StatelessRandomUniformInt");
REGISTER_NO_GRADIENT_OP("StatelessRandomUniformFullInt");
REGISTER_NO_GRADIENT_OP("StatelessRandomUniformV2");
REGISTER_NO_GRADIENT_OP("StatelessRandomNormalV2");
REGISTER_NO_GRADIENT_OP("StatelessTruncatedNormalV2");
REGISTER_NO_GRADIENT_OP("StatelessRandomUniformIntV2");
REGISTER_NO_GRADIENT_OP("StatelessRandomUniformFullIntV2");
REGISTER_NO_GRADIENT_OP("StatelessMultinomial");
REGISTER_NO_GRADIENT_OP("StatelessRandomPoisson");

}  // namespace tensoract
