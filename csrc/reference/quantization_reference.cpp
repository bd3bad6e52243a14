#include "reference/quantization_reference.h"

#include <fmt/format.h>

#include "ir/statement.h"
#include "support/numerics.h"

namespace mf {

QuantizedTensors quantizeBlocks(std::string_view op, const Val* in_val, const Tensor& in,
                                const Tensor* global_scale, int64_t block_size) {
  MF_ASSERT(in.dim() >= 1, "{}: a 0-dim input", op);
  const int64_t k = in.sizes().back();
  MF_CHECK(k % block_size == 0,
           "{}: the last extent of input {} must be a multiple of the block size {}, got {}", op,
           in_val->toInlineString(), block_size, k);
  const float gs =
      global_scale != nullptr ? static_cast<float>(asDouble(global_scale->scalarValue())) : 1.0f;
  std::vector<int64_t> scale_sizes = in.sizes();
  scale_sizes.back() = k / block_size;
  QuantizedTensors out{Tensor::empty(scale_sizes, DataType::Float8_e4m3fn),
                       Tensor::empty(in.sizes(), DataType::Float4_e2m1fn)};
  auto* scales = static_cast<uint8_t*>(out.block_scales.rawData());
  auto* packed = static_cast<uint8_t*>(out.quantized.rawData());
  const int64_t blocks = out.block_scales.numel();
  std::vector<float> x(static_cast<size_t>(block_size));
  for (int64_t b = 0; b < blocks; ++b) {
    float amax = 0.0f;
    for (int64_t j = 0; j < block_size; ++j) {
      x[j] = static_cast<float>(in.item(b * block_size + j));  // exact: a narrower float
      amax = nvfp4AbsMax(amax, x[j]);
    }
    const Float8e4m3 s = floatToFloat8e4m3(nvfp4BlockScale(amax, gs));
    scales[b] = s.bits;
    const float rounded = float8e4m3ToFloat(s);
    // block_size is even: the block's codes fill whole bytes, low nibble first.
    for (int64_t j = 0; j < block_size; j += 2) {
      const uint8_t lo = nvfp4Quantize(x[j], rounded, gs, amax).bits;
      const uint8_t hi = nvfp4Quantize(x[j + 1], rounded, gs, amax).bits;
      packed[(b * block_size + j) / 2] = static_cast<uint8_t>(lo | (hi << 4));
    }
  }
  return out;
}

}  // namespace mf
