// Helpers shared by the CPU reference tests: tensors from double lists and back, and a
// one-call run of a fusion.
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "minifuser.h"

namespace reftest {

using namespace mf;

//! A `dtype` tensor holding `values` (row-major), each converted with castValue's rules.
inline Tensor makeTensor(const std::vector<double>& values, std::vector<int64_t> sizes,
                         DataType dtype) {
  auto convert = [&]<typename T>() {
    std::vector<T> v;
    for (double x : values) v.push_back(castValue<T>(x));
    return Tensor::fromVector(v, std::move(sizes));
  };
  switch (dtype) {
    case DataType::Bool:
      return convert.operator()<bool>();
    case DataType::Int32:
      return convert.operator()<int32_t>();
    case DataType::Int64:
      return convert.operator()<int64_t>();
    case DataType::Half:
      return convert.operator()<Half>();
    case DataType::BFloat16:
      return convert.operator()<BFloat16>();
    case DataType::Float:
      return convert.operator()<float>();
    case DataType::Double:
      return convert.operator()<double>();
    case DataType::Float8_e4m3fn:
      return convert.operator()<Float8e4m3>();
    case DataType::Float4_e2m1fn: {  // packed: no host element type
      Tensor t = Tensor::empty(std::move(sizes), dtype);
      for (size_t i = 0; i < values.size(); ++i)
        storeElementAt(static_cast<std::byte*>(t.rawData()), static_cast<int64_t>(i), dtype,
                       values[i]);
      return t;
    }
    case DataType::Index:
      break;
  }
  ADD_FAILURE() << "makeTensor: not a tensor dtype";
  return Tensor();
}

//! Every logical element as a double, row-major.
inline std::vector<double> values(const Tensor& t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(t.item(i));
  return v;
}

//! Runs `fusion` on `inputs` and returns its only output.
inline Tensor runOne(Fusion& fusion, const std::vector<Tensor>& inputs,
                     const ReferenceOptions& options = {}) {
  std::vector<Tensor> outs = ReferenceEvaluator(&fusion).run(inputs, options);
  EXPECT_EQ(outs.size(), 1u);
  return outs.at(0);
}

}  // namespace reftest
