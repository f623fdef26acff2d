#include "kernels/queue.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>

namespace tensoract {
namespace {

bool Copyable(DataType t) { return DataTypeIsFixedSize(t) || t == tensorflow::DT_STRING; }

// Copies `count` elements of `from` starting at `from_offset` into `to` at `to_offset`.
void CopyElements(const Tensor& from, int64_t from_offset, Tensor* to, int64_t to_offset, int64_t count) {
  if (count == 0) return;
  if (from.dtype() == tensorflow::DT_STRING) {
    const auto* src = from.base<std::string>() + from_offset;
    std::copy(src, src + count, to->base<std::string>() + to_offset);
    return;
  }
  const size_t size = DataTypeSize(from.dtype());
  std::memcpy(static_cast<char*>(to->data()) + to_offset * size,
              static_cast<const char*>(from.data()) + from_offset * size, count * size);
}

// `element` copied into row `row` of `batch`, each dimension padded up to the batch's
// (which is at least as large): the rest of the row keeps its zeros.
void CopyPadded(const Tensor& element, Tensor* batch, int64_t row) {
  const int rank = element.dims();
  // padded_stride[d]: elements of the padded layout per step of dimension d.
  std::vector<int64_t> padded_stride(rank + 1, 1);
  bool same = true;
  for (int d = rank - 1; d >= 0; --d) {
    padded_stride[d] = padded_stride[d + 1] * batch->dim_size(d + 1);
    same &= element.dim_size(d) == batch->dim_size(d + 1);
  }
  const int64_t row_start = row * padded_stride[0];
  if (same) return CopyElements(element, 0, batch, row_start, element.NumElements());
  if (element.NumElements() == 0) return;
  // Copy the element's innermost runs one by one, each to its padded position.
  const int64_t inner = element.dim_size(rank - 1);
  const int64_t runs = element.NumElements() / inner;
  for (int64_t r = 0; r < runs; ++r) {
    int64_t rem = r, offset = 0;
    for (int d = rank - 2; d >= 0; --d) {
      offset += (rem % element.dim_size(d)) * padded_stride[d];
      rem /= element.dim_size(d);
    }
    CopyElements(element, r * inner, batch, row_start + offset, inner);
  }
}

}  // namespace

const char* QueueSpec::KindName() const {
  switch (kind) {
    case Kind::kFifo: return "FIFOQueue";
    case Kind::kPaddingFifo: return "PaddingFIFOQueue";
    case Kind::kRandomShuffle: return "RandomShuffleQueue";
    case Kind::kPriority: return "PriorityQueue";
  }
  return "Queue";
}

std::string QueueSpec::Describe() const { return StrCat(KindName(), " '", name, "'"); }

int64_t QueueSpec::max_size() const { return capacity < 0 ? std::numeric_limits<int64_t>::max() : capacity; }

Status QueueSpec::ValidateElement(const QueueTuple& element) const {
  if (element.size() != component_types.size()) {
    return errors::InvalidArgument(Describe(), " expects ", component_types.size(), " components, got ",
                                   element.size());
  }
  for (size_t i = 0; i < element.size(); ++i) {
    if (element[i].dtype() != component_types[i]) {
      return errors::InvalidArgument(Describe(), ": component ", i, " has dtype ",
                                     DataTypeString(element[i].dtype()), " but the queue holds ",
                                     DataTypeString(component_types[i]));
    }
    if (!Copyable(element[i].dtype())) {
      return errors::Unimplemented(Describe(), ": component ", i, " of dtype ", DataTypeString(element[i].dtype()),
                                   " cannot be queued");
    }
    if (!shapes.empty() && !shapes[i].IsCompatibleWith(element[i].shape())) {
      return errors::InvalidArgument("Shape mismatch in tuple component ", i, ". Expected ",
                                     shapes[i].DebugString(), ", got ", element[i].shape().DebugString());
    }
  }
  if (kind == Kind::kPriority && element[0].dims() != 0) {
    return errors::InvalidArgument(Describe(), ": the priority (component 0) must be a scalar, got shape ",
                                   element[0].shape().DebugString());
  }
  return Status::OK();
}

Status QueueSpec::ValidateBatch(const QueueTuple& batch) const {
  if (batch.size() != component_types.size()) {
    return errors::InvalidArgument(Describe(), " expects ", component_types.size(), " components, got ",
                                   batch.size());
  }
  for (size_t i = 0; i < batch.size(); ++i) {
    if (batch[i].dtype() != component_types[i]) {
      return errors::InvalidArgument(Describe(), ": component ", i, " has dtype ", DataTypeString(batch[i].dtype()),
                                     " but the queue holds ", DataTypeString(component_types[i]));
    }
    if (batch[i].dims() == 0) {
      return errors::InvalidArgument(Describe(), ": EnqueueMany needs a batch dimension, but component ", i,
                                     " is a scalar");
    }
    if (batch[i].dim_size(0) != batch[0].dim_size(0)) {
      return errors::InvalidArgument(Describe(), ": EnqueueMany needs one batch size, but component ", i, " has ",
                                     batch[i].dim_size(0), " elements and component 0 has ", batch[0].dim_size(0));
    }
    if (!shapes.empty()) {
      std::vector<int64_t> dims = batch[i].shape().dim_sizes();
      TensorShape element(std::vector<int64_t>(dims.begin() + 1, dims.end()));
      if (!shapes[i].IsCompatibleWith(element)) {
        return errors::InvalidArgument("Shape mismatch in tuple component ", i, ". Expected ",
                                       shapes[i].DebugString(), ", got ", element.DebugString(),
                                       " (the batch's elements)");
      }
    }
  }
  if (kind == Kind::kPriority && batch[0].dims() != 1) {
    return errors::InvalidArgument(Describe(), ": the priorities (component 0) must be a vector, got shape ",
                                   batch[0].shape().DebugString());
  }
  return Status::OK();
}

Status QueueSpec::CheckSameAs(const QueueSpec& other) const {
  if (kind != other.kind || component_types != other.component_types || capacity != other.capacity) {
    return errors::InvalidArgument("Shared queue '", name, "' is a ", KindName(), " of ",
                                   DataTypeVectorString(component_types), " with capacity ", capacity,
                                   " but was declared again as a ", other.KindName(), " of ",
                                   DataTypeVectorString(other.component_types), " with capacity ", other.capacity);
  }
  bool same_shapes = shapes.size() == other.shapes.size();
  for (size_t i = 0; same_shapes && i < shapes.size(); ++i) {
    same_shapes = shapes[i].IsIdenticalTo(other.shapes[i]);
  }
  if (!same_shapes) return errors::InvalidArgument("Shared queue '", name, "' was declared again with other shapes");
  return Status::OK();
}

Tensor QueueElement::Component(size_t i) const {
  const Tensor& t = (*tensors)[i];
  if (row < 0) return t;
  Tensor out(t.dtype(), ComponentShape(i));
  CopyElements(t, row * out.NumElements(), &out, 0, out.NumElements());
  return out;
}

TensorShape QueueElement::ComponentShape(size_t i) const {
  const Tensor& t = (*tensors)[i];
  if (row < 0) return t.shape();
  TensorShape shape;
  for (int d = 0; d < ComponentRank(i); ++d) shape.AddDim(ComponentDim(i, d));
  return shape;
}

int QueueElement::ComponentRank(size_t i) const { return (*tensors)[i].dims() - (row < 0 ? 0 : 1); }

int64_t QueueElement::ComponentDim(size_t i, int d) const { return (*tensors)[i].dim_size(row < 0 ? d : d + 1); }

int64_t QueueElement::Priority() const { return (*tensors)[0].base<int64_t>()[row < 0 ? 0 : row]; }

std::vector<QueueElement> SplitBatch(QueueTuple batch) {
  const int64_t n = batch.empty() ? 0 : batch[0].dim_size(0);
  auto shared = std::make_shared<const QueueTuple>(std::move(batch));
  std::vector<QueueElement> elements(n);
  for (int64_t i = 0; i < n; ++i) elements[i] = QueueElement{shared, i};
  return elements;
}

QueueElement WholeElement(QueueTuple tensors) {
  return QueueElement{std::make_shared<const QueueTuple>(std::move(tensors)), -1};
}

QueueTuple ElementTensors(const QueueElement& element) {
  QueueTuple out;
  for (size_t i = 0; i < element.tensors->size(); ++i) out.push_back(element.Component(i));
  return out;
}

void CompactElements(std::deque<QueueElement>* elements) {
  std::map<const QueueTuple*, std::vector<size_t>> rows_of;  // batch -> its elements' positions
  for (size_t i = 0; i < elements->size(); ++i) {
    const QueueElement& e = (*elements)[i];
    if (e.row >= 0) rows_of[e.tensors.get()].push_back(i);
  }
  for (const auto& [batch, positions] : rows_of) {
    const int64_t rows = (*batch)[0].dim_size(0);
    const int64_t kept = static_cast<int64_t>(positions.size());
    if (kept * 2 >= rows) continue;
    QueueTuple packed;
    for (const Tensor& component : *batch) {
      std::vector<int64_t> dims = component.shape().dim_sizes();
      const int64_t row_size = rows == 0 ? 0 : component.NumElements() / rows;
      dims[0] = kept;
      Tensor out(component.dtype(), TensorShape(dims));
      for (int64_t k = 0; k < kept; ++k) {
        CopyElements(component, (*elements)[positions[k]].row * row_size, &out, k * row_size, row_size);
      }
      packed.push_back(std::move(out));
    }
    auto shared = std::make_shared<const QueueTuple>(std::move(packed));
    for (int64_t k = 0; k < kept; ++k) (*elements)[positions[k]] = QueueElement{shared, k};
  }
}

bool RowSlab::Fits(const QueueSpec& spec) {
  if (spec.shapes.size() != spec.component_types.size() || spec.shapes.empty()) return false;
  for (const PartialTensorShape& shape : spec.shapes) {
    if (!shape.IsFullyDefined()) return false;
  }
  return true;
}

RowSlab::RowSlab(const QueueSpec& spec) : max_rows_(spec.max_size()) {
  for (size_t c = 0; c < spec.component_types.size(); ++c) {
    std::vector<int64_t> dims;
    int64_t elements = 1;
    for (int d = 0; d < spec.shapes[c].dims(); ++d) {
      dims.push_back(spec.shapes[c].dim_size(d));
      elements *= dims.back();
    }
    element_dims_.push_back(std::move(dims));
    row_elements_.push_back(elements);
    rows_.emplace_back(spec.component_types[c], RowsShape(c, 0));
  }
}

TensorShape RowSlab::RowsShape(size_t c, int64_t rows) const {
  std::vector<int64_t> dims = {rows};
  dims.insert(dims.end(), element_dims_[c].begin(), element_dims_[c].end());
  return TensorShape(dims);
}

void RowSlab::Grow() {
  const int64_t room = rows_[0].dim_size(0);
  const int64_t grown = std::min(max_rows_, std::max<int64_t>(256, 2 * room));
  for (size_t c = 0; c < rows_.size(); ++c) {
    Tensor bigger(rows_[c].dtype(), RowsShape(c, grown));
    CopyElements(rows_[c], 0, &bigger, 0, size_ * row_elements_[c]);
    rows_[c] = std::move(bigger);
  }
}

void RowSlab::Push(const QueueElement& element) {
  if (size_ == rows_[0].dim_size(0)) Grow();
  for (size_t c = 0; c < rows_.size(); ++c) {
    const int64_t n = row_elements_[c];
    CopyElements((*element.tensors)[c], element.row < 0 ? 0 : element.row * n, &rows_[c], size_ * n, n);
  }
  ++size_;
}

std::vector<QueueElement> RowSlab::Take(int64_t k, const std::function<int64_t(int64_t size)>& pick) {
  QueueTuple taken;
  for (size_t c = 0; c < rows_.size(); ++c) taken.emplace_back(rows_[c].dtype(), RowsShape(c, k));
  for (int64_t j = 0; j < k; ++j) {
    const int64_t i = pick(size_);
    --size_;
    for (size_t c = 0; c < rows_.size(); ++c) {
      const int64_t n = row_elements_[c];
      CopyElements(rows_[c], i * n, &taken[c], j * n, n);
      if (i != size_) CopyElements(rows_[c], size_ * n, &rows_[c], i * n, n);
    }
  }
  return SplitBatch(std::move(taken));
}

StatusOr<QueueTuple> BatchElements(const QueueSpec& spec, const std::vector<QueueElement>& elements) {
  QueueTuple batch;
  const int64_t n = static_cast<int64_t>(elements.size());
  if (n > 0 && elements[0].row == 0 && (*elements[0].tensors)[0].dim_size(0) == n) {
    bool whole = true;
    for (int64_t i = 0; whole && i < n; ++i) whole = elements[i].tensors == elements[0].tensors && elements[i].row == i;
    if (whole) return *elements[0].tensors;
  }
  for (size_t c = 0; c < spec.component_types.size(); ++c) {
    std::vector<int64_t> dims;
    if (n == 0) {
      // An empty batch of the declared shape (unknown dimensions as 0).
      if (!spec.shapes.empty() && !spec.shapes[c].unknown_rank()) {
        for (int d = 0; d < spec.shapes[c].dims(); ++d) dims.push_back(std::max<int64_t>(spec.shapes[c].dim_size(d), 0));
      }
    } else {
      const QueueElement& first = elements[0];
      for (int d = 0; d < first.ComponentRank(c); ++d) dims.push_back(first.ComponentDim(c, d));
      // Compared in place: a dequeue-many of 64 made two shapes per element before.
      for (const QueueElement& e : elements) {
        if (e.tensors == first.tensors) continue;  // rows of one batch have one shape
        const int rank = e.ComponentRank(c);
        if (rank != static_cast<int>(dims.size())) {
          return errors::InvalidArgument(spec.Describe(), ": cannot batch component ", c, " of ranks ", dims.size(),
                                         " and ", rank);
        }
        for (int d = 0; d < rank; ++d) {
          const int64_t size = e.ComponentDim(c, d);
          if (size == dims[d]) continue;
          if (spec.kind != QueueSpec::Kind::kPaddingFifo) {
            return errors::InvalidArgument(spec.Describe(), ": cannot batch component ", c, " of shapes ",
                                           first.ComponentShape(c).DebugString(), " and ",
                                           e.ComponentShape(c).DebugString(), " (a PaddingFIFOQueue pads them)");
          }
          dims[d] = std::max(dims[d], size);
        }
      }
    }
    dims.insert(dims.begin(), n);
    Tensor out(spec.component_types[c], TensorShape(dims));
    const int64_t row = n == 0 ? 0 : out.NumElements() / n;
    if (spec.kind == QueueSpec::Kind::kPaddingFifo) {
      if (DataTypeIsFixedSize(out.dtype())) std::memset(out.data(), 0, out.TotalBytes());
      for (int64_t i = 0; i < n; ++i) CopyPadded(elements[i].Component(c), &out, i);
    } else {
      for (int64_t i = 0; i < n; ++i) {
        const QueueElement& e = elements[i];
        CopyElements((*e.tensors)[c], e.row < 0 ? 0 : e.row * row, &out, i * row, row);
      }
    }
    batch.push_back(std::move(out));
  }
  return batch;
}

}  // namespace tensoract
