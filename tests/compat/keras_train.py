"""Keras models exported with TensorFlow's own training step as a SavedModel signature, for
tensoract to run (issue 54: training a real network). Shared by the training compat test
(training_compat.py) and the ResNet50 training benchmark (tests/bench/resnet_train.py).

The signature "train_step" takes images [B, S, S, 3] float32 and labels [B] int32, runs the
model in training mode (batch normalization on the batch's own statistics, its moving
averages updated), sparse softmax cross-entropy on the logits, the gradients of every
trainable weight, and w -= learning_rate * g; it returns {"loss": the loss before the step},
and with report_gradients also {"gradients": each trainable weight's sum of squared
gradients, in model.trainable_variables' order}.
"""


def small_resnet(size, classes):
    """A residual CNN small enough for CI that still has a real network's layers: 3x3 and 1x1
    convolutions 16 to 64 deep (the depths oneDNN runs here), a strided 1x1 shortcut, batch
    normalization, ReLU, max and global average pooling, a Dense head."""
    import keras
    from keras import layers

    def conv_bn(x, filters, kernel, strides=1, relu=True):
        x = layers.Conv2D(filters, kernel, strides=strides, padding="same")(x)
        x = layers.BatchNormalization(epsilon=1.001e-5)(x)
        return layers.ReLU()(x) if relu else x

    def block(x, filters, strides):
        shortcut = x
        if strides != 1 or x.shape[-1] != filters:
            shortcut = conv_bn(x, filters, 1, strides, relu=False)
        y = conv_bn(x, filters // 2, 1)
        y = conv_bn(y, filters // 2, 3, strides)
        y = conv_bn(y, filters, 1, relu=False)
        return layers.ReLU()(layers.Add()([y, shortcut]))

    inputs = keras.Input((size, size, 3))
    x = conv_bn(inputs, 16, 3)
    x = layers.MaxPooling2D(3, 2, padding="same")(x)
    x = block(x, 32, 1)
    x = block(x, 64, 2)
    x = block(x, 64, 1)
    x = layers.GlobalAveragePooling2D()(x)
    return keras.Model(inputs, layers.Dense(classes)(x))


def export_train_step(model, out, size, learning_rate=0.01, report_gradients=False):
    """Writes `model`'s training step to the SavedModel directory `out` (see the module)."""
    import keras
    import tensorflow as tf
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    class Trainer(tf.Module):
        def __init__(self):
            super().__init__()
            self.model = model

        @tf.function(input_signature=[tf.TensorSpec([None, size, size, 3], tf.float32, name="images"),
                                      tf.TensorSpec([None], tf.int32, name="labels")])
        def train_step(self, images, labels):
            with tf.GradientTape() as tape:
                loss = loss_fn(labels, self.model(images, training=True))
            weights = self.model.trainable_variables
            gradients = tape.gradient(loss, weights)
            for w, g in zip(weights, gradients):
                w.assign_sub(learning_rate * g)
            result = {"loss": loss}
            if report_gradients:
                result["gradients"] = tf.stack([tf.reduce_sum(tf.square(g)) for g in gradients])
            return result

    trainer = Trainer()
    tf.saved_model.save(trainer, out, signatures={"train_step": trainer.train_step})
