"""The model zoo of issue 54: Keras models as people serve them, for the compat check
(keras_zoo_compat.py) and the benchmarks (tests/bench/model_zoo_*.py). Not a test itself.

    from keras_zoo import zoo, export, serving_keys, sample_input
    for m in zoo("small", names=REPRESENTATIVE):
        model = m.build()                      # seeded: the same weights every time
        export(model, "/tmp/x", "export")      # or "saved_model"
        key, outputs = serving_keys("/tmp/x")  # the serving signature's single input

Import it after setting TensorFlow's environment (TF_ENABLE_ONEDNN_OPTS and the like):
it imports Keras, which imports TensorFlow.

The zoo is every keras.applications model (Keras 3.15, built with weights=None: random
weights, nothing downloaded) and hand-built ones: transformer encoders with exact and
tanh-approximated GELU, a small ViT, LSTM, GRU and bidirectional GRU text classifiers, a
Conv1D text CNN and an embedding-bag classifier.

Sizes: "small" keeps CI short: images at each application's minimum side (32; Xception 71;
InceptionV3 and InceptionResNetV2 75), text at 16 tokens of a 100-word vocabulary. "full" is
what the models are served at: each application's ImageNet side (224; 299 for InceptionV3,
InceptionResNetV2 and Xception; 331 for NASNetLarge; EfficientNet's own 240..600), text at
128 tokens of a 1000-word vocabulary, the ViT at 224 with 16x16 patches.
"""
import os
import typing

import numpy as np
import keras
from keras import layers

SEED = 54  # the number: any fixed value, so that every run builds the same weights

# name -> (small side, full side). The small side is the least keras.applications accepts
# (it checks it when the top is included); the full one is the model's ImageNet resolution.
APPLICATIONS = {
    "ConvNeXtTiny": (32, 224), "ConvNeXtSmall": (32, 224), "ConvNeXtBase": (32, 224),
    "ConvNeXtLarge": (32, 224), "ConvNeXtXLarge": (32, 224),
    "DenseNet121": (32, 224), "DenseNet169": (32, 224), "DenseNet201": (32, 224),
    "EfficientNetB0": (32, 224), "EfficientNetB1": (32, 240), "EfficientNetB2": (32, 260),
    "EfficientNetB3": (32, 300), "EfficientNetB4": (32, 380), "EfficientNetB5": (32, 456),
    "EfficientNetB6": (32, 528), "EfficientNetB7": (32, 600),
    "EfficientNetV2B0": (32, 224), "EfficientNetV2B1": (32, 240), "EfficientNetV2B2": (32, 260),
    "EfficientNetV2B3": (32, 300), "EfficientNetV2S": (32, 384), "EfficientNetV2M": (32, 480),
    "EfficientNetV2L": (32, 480),
    "InceptionResNetV2": (75, 299), "InceptionV3": (75, 299), "Xception": (71, 299),
    "MobileNet": (32, 224), "MobileNetV2": (32, 224), "MobileNetV3Small": (32, 224),
    "MobileNetV3Large": (32, 224),
    "NASNetMobile": (32, 224), "NASNetLarge": (32, 331),
    "ResNet50": (32, 224), "ResNet101": (32, 224), "ResNet152": (32, 224),
    "ResNet50V2": (32, 224), "ResNet101V2": (32, 224), "ResNet152V2": (32, 224),
    "VGG16": (32, 224), "VGG19": (32, 224),
}

TEXT = {"small": (16, 100), "full": (128, 1000)}  # (tokens, vocabulary)
CLASSES = 10  # of the hand-built classifiers

# What the ctest runs: one of each family and of each thing that makes a family hard
# (residuals, depthwise convolutions, squeeze-excitation with swish, concatenation, GELU,
# LayerNorm, attention, recurrent loops, masking). Chosen to stay within about four minutes
# on two cores exporting both ways at batches 1 and 32.
REPRESENTATIVE = ("ResNet50", "MobileNetV2", "EfficientNetB0", "DenseNet121", "ConvNeXtTiny",
                  "transformer_gelu", "transformer_gelu_tanh", "vit", "lstm", "bigru", "text_cnn",
                  "embedding_bag")


class ZooModel(typing.NamedTuple):
    name: str
    build: typing.Callable[[], keras.Model]  # seeds Keras' generators, then builds
    input_shape: tuple                       # without the batch dimension
    input_dtype: str                         # "float32" images or "int32" token ids
    vocabulary: int = 0                      # token ids lie in [0, vocabulary) when int32


def zoo(size="small", names=None):
    """The zoo at `size` ("small" or "full"), in a fixed order; only `names` when given
    (ValueError naming any that are not in it)."""
    if size not in ("small", "full"):
        raise ValueError(f"size must be 'small' or 'full', not {size!r}")
    models = [_application(name, sides[0 if size == "small" else 1], size) for name, sides in APPLICATIONS.items()]
    models += _hand_built(size)
    if names is None:
        return models
    known = {m.name: m for m in models}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"not in the zoo: {', '.join(unknown)} (known: {', '.join(known)})")
    return [known[n] for n in names]


def sample_input(model, batch, seed=0):
    """A random batch for `model` (a ZooModel): pixels in [0, 255) as the applications read
    raw images (those that normalise do it inside the model), token ids over the whole
    vocabulary."""
    rng = np.random.default_rng(seed)
    shape = (batch, *model.input_shape)
    if model.input_dtype == "int32":
        return rng.integers(0, model.vocabulary, shape, dtype=np.int32)
    return rng.uniform(0, 255, shape).astype(np.float32)


HOWS = ("export", "saved_model")  # the two ways export() writes a SavedModel


def export(model, directory, how):
    """Writes `model` as a SavedModel with a serving_default signature, the Keras 3 way
    (how="export": model.export) or the TensorFlow way (how="saved_model":
    tf.saved_model.save, whose signature Keras derives from the model's inputs)."""
    if how == "export":
        model.export(directory, format="tf_saved_model", verbose=False)
    elif how == "saved_model":
        import tensorflow as tf
        tf.saved_model.save(model, directory)
    else:
        raise ValueError(f"how must be 'export' or 'saved_model', not {how!r}")


def float64_twin(m, model):
    """`model` (built by m.build()) again in float64: Keras' floatx makes the weights float64
    and the dtype policy the computation, with `model`'s weights widened. Its outputs are the
    reference float32 runs are measured against where two float32 implementations part
    (keras_zoo_compat.py's referee, keras_zoo_float64.py)."""
    weights = model.get_weights()
    keras.config.set_floatx("float64")
    keras.config.set_dtype_policy("float64")
    try:
        wide = m.build()
        wide.set_weights([w.astype(np.float64) for w in weights])
    finally:
        keras.config.set_floatx("float32")
        keras.config.set_dtype_policy("float32")
    return wide


FLOOR = 1e-4  # outputs below this (probabilities near zero) have no meaningful relative error


def relative_error(values, reference):
    """The largest relative error of `values` against `reference` where |reference| > FLOOR."""
    values, reference = np.asarray(values, np.float64), np.asarray(reference, np.float64)
    big = np.abs(reference) > FLOOR
    return float((np.abs(values - reference)[big] / np.abs(reference[big])).max()) if big.any() else 0.0


def serving_keys(directory, signature="serving_default"):
    """(the signature's single input key, its output keys), read from saved_model.pb alone:
    the key differs between the two ways of exporting and between Keras versions
    ("inputs", "input_layer", "keras_tensor_12", ...), and nothing needs restoring to know it."""
    from tensorflow.core.protobuf import saved_model_pb2
    sm = saved_model_pb2.SavedModel()
    with open(os.path.join(directory, "saved_model.pb"), "rb") as f:
        sm.ParseFromString(f.read())
    sig = sm.meta_graphs[0].signature_def[signature]
    if len(sig.inputs) != 1:
        raise ValueError(f"{directory}: {signature} has inputs {sorted(sig.inputs)}, not one")
    (key,) = sig.inputs
    return key, sorted(sig.outputs)


# ------------------------------------------------------------------ keras.applications

# Images the batch norms' statistics are taken over (see _calibrated). At the small sizes the
# last blocks see 1x1 maps, so a channel's statistics come from the images alone: over 8 the
# variances of some channels are near zero, and ResNet50's logits reach 70 and
# EfficientNetB0's 3000, where a rounding difference of 1e-7 grows to 1e-2 (TensorFlow with
# oneDNN differs from TensorFlow without it by as much). Over 64 both stay near 10, as
# trained models' do. The full sizes end on 7x7 maps or larger: 8 images give 392 values.
CALIBRATION_IMAGES = {"small": 64, "full": 8}


def _application(name, side, size):
    def build():
        keras.utils.set_random_seed(SEED)
        model = getattr(keras.applications, name)(weights=None, input_shape=(side, side, 3))
        return _calibrated(model, sample_input(entry, CALIBRATION_IMAGES[size], seed=SEED))
    entry = ZooModel(name, build, (side, side, 3), "float32")
    return entry


def _calibrated(model, images):
    """`model` with each batch normalisation's moving statistics set to those of `images`.

    Freshly initialised statistics (mean 0, variance 1) do not normalise anything: through
    MobileNetV2's or EfficientNet's dozens of blocks the activations shrink to 1e-11 and every
    image gets the same uniform 0.001 from the softmax, which any kernel, however wrong, would
    match. One training-mode pass with momentum 0 stores the batch's statistics, as trained
    weights would hold the data's, so that the outputs depend on the input."""
    norms = [layer for layer in model.layers if isinstance(layer, layers.BatchNormalization)]
    momenta = [layer.momentum for layer in norms]
    for layer in norms:
        layer.momentum = 0.0
    model(images, training=True)
    for layer, momentum in zip(norms, momenta):
        layer.momentum = momentum
    return model


# ------------------------------------------------------------------ hand-built

def gelu_tanh(x):
    """GELU's tanh approximation (Hendrycks and Gimpel; BERT's and GPT-2's): Tanh and Pow,
    where exact GELU is Erfc."""
    return keras.activations.gelu(x, approximate=True)


class PositionEmbedding(layers.Layer):
    """A learned embedding per position, added: the sequence length is fixed by the input."""

    def build(self, input_shape):
        self.positions = self.add_weight(shape=tuple(input_shape[1:]), name="positions",
                                         initializer=keras.initializers.RandomNormal(stddev=0.02))

    def call(self, x):
        return x + self.positions


class ClassToken(layers.Layer):
    """ViT's learned [class] token put before the patches; its output is the image's."""

    def build(self, input_shape):
        self.token = self.add_weight(shape=(1, 1, input_shape[-1]), name="token",
                                     initializer=keras.initializers.RandomNormal(stddev=0.02))

    def call(self, x):
        batch = keras.ops.shape(x)[0]
        token = keras.ops.broadcast_to(self.token, (batch, 1, keras.ops.shape(x)[-1]))
        return keras.ops.concatenate([token, x], axis=1)


def _encoder_block(x, heads, mlp, activation, pre_norm):
    """A transformer encoder block: BERT's (post-norm) or ViT's (pre-norm)."""
    dim = x.shape[-1]
    norm = lambda: layers.LayerNormalization(epsilon=1e-6)  # noqa: E731
    h = norm()(x) if pre_norm else x
    h = layers.MultiHeadAttention(heads, dim // heads)(h, h)
    x = layers.Add()([x, h])
    if not pre_norm:
        x = norm()(x)
    h = norm()(x) if pre_norm else x
    h = layers.Dense(mlp, activation=activation)(h)
    h = layers.Dense(dim)(h)
    x = layers.Add()([x, h])
    return x if pre_norm else norm()(x)


def _text_model(name, tokens, vocabulary, body):
    def build():
        keras.utils.set_random_seed(SEED)
        ids = keras.Input((tokens,), dtype="int32", name="token_ids")
        out = layers.Dense(CLASSES, activation="softmax")(body(ids))
        return keras.Model(ids, out, name=name)
    return ZooModel(name, build, (tokens,), "int32", vocabulary)


def _hand_built(size):
    tokens, vocabulary = TEXT[size]
    models = []

    def transformer(activation):
        def body(ids):
            x = layers.Embedding(vocabulary, 64)(ids)
            x = PositionEmbedding()(x)
            for _ in range(2):
                x = _encoder_block(x, heads=4, mlp=128, activation=activation, pre_norm=False)
            return layers.GlobalAveragePooling1D()(x)
        return body
    # Dense's activation="gelu" is exact GELU (TensorFlow: 0.5 x erfc(-x / sqrt 2)).
    models.append(_text_model("transformer_gelu", tokens, vocabulary, transformer("gelu")))
    models.append(_text_model("transformer_gelu_tanh", tokens, vocabulary, transformer(gelu_tanh)))

    side, patch = (32, 4) if size == "small" else (224, 16)

    def vit():
        keras.utils.set_random_seed(SEED)
        image = keras.Input((side, side, 3), name="image")
        x = layers.Rescaling(1 / 127.5, offset=-1)(image)
        x = layers.Conv2D(64, patch, strides=patch)(x)  # the patch embedding
        x = layers.Reshape(((side // patch) ** 2, 64))(x)
        x = ClassToken()(x)
        x = PositionEmbedding()(x)
        for _ in range(2):
            x = _encoder_block(x, heads=4, mlp=128, activation="gelu", pre_norm=True)
        x = layers.LayerNormalization(epsilon=1e-6)(x)
        x = layers.Lambda(lambda t: t[:, 0])(x)  # the class token's output
        return keras.Model(image, layers.Dense(CLASSES, activation="softmax")(x), name="vit")
    models.append(ZooModel("vit", vit, (side, side, 3), "float32"))

    models.append(_text_model("lstm", tokens, vocabulary,
                              lambda ids: layers.LSTM(32)(layers.Embedding(vocabulary, 32)(ids))))
    models.append(_text_model("gru", tokens, vocabulary,
                              lambda ids: layers.GRU(32)(layers.Embedding(vocabulary, 32)(ids))))
    # Id 0 is padding here, as in most text pipelines: the mask reaches both directions' loops.
    models.append(_text_model("bigru", tokens, vocabulary, lambda ids: layers.Bidirectional(layers.GRU(32))(
        layers.Embedding(vocabulary, 32, mask_zero=True)(ids))))

    def text_cnn(ids):
        x = layers.Embedding(vocabulary, 32)(ids)
        pooled = [layers.GlobalMaxPooling1D()(layers.Conv1D(32, k, activation="relu")(x)) for k in (3, 4, 5)]
        return layers.Concatenate()(pooled)
    models.append(_text_model("text_cnn", tokens, vocabulary, text_cnn))

    models.append(_text_model("embedding_bag", tokens, vocabulary, lambda ids: layers.Dense(32, activation="relu")(
        layers.GlobalAveragePooling1D()(layers.Embedding(vocabulary, 32)(ids)))))
    return models
