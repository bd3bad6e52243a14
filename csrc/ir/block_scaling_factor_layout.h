//! The geometry of the layout op's block-scaling-factor layouts (BlockScalingFactorLayout in
//! ir/exprs.h names them): the tile a group's rows are padded to, the padded buffer's extents
//! and the swizzled position of an element. The op (ops/layout.cpp), the CPU reference and
//! the argument layer ask it instead of spelling 128, 4 and 127 themselves. runtime/ holds the
//! device-side copy of the swizzle (its source is hashed into every kernel name).
#pragma once

#include <cstdint>

namespace mf {

enum class BlockScalingFactorLayout;

//! One layout's geometry: each group's rows start at a multiple of tile_rows of the padded
//! buffer, and each tile_rows x tile_cols tile of a group is stored swizzled, contiguously.
struct BlockScalingFactorGeometry {
  int64_t tile_rows = 0;
  int64_t tile_cols = 0;

  //! Rows of the padded buffer for m rows in g groups, in the worst case (every group pads
  //! tile_rows - 1 rows): m + (tile_rows - 1) * g.
  int64_t paddedRows(int64_t m, int64_t g) const { return m + (tile_rows - 1) * g; }
  //! Columns of the padded buffer: k rounded up to tile_cols.
  int64_t paddedCols(int64_t k) const { return (k + tile_cols - 1) / tile_cols * tile_cols; }
  //! Rows a group of `rows` takes in the padded buffer: rows rounded up to tile_rows.
  int64_t groupRows(int64_t rows) const { return (rows + tile_rows - 1) / tile_rows * tile_rows; }
  //! The position, from its group's first element, of row r (counted from the group's first
  //! row) and column col in a buffer of kp = paddedCols(k) columns (Block128x4:
  //! (r/128)*kp*128 + (col/4)*512 + (r%32)*16 + ((r%128)/32)*4 + col%4).
  int64_t swizzledOffset(int64_t r, int64_t col, int64_t kp) const {
    const int64_t quarter = tile_rows / 4;
    return (r / tile_rows) * kp * tile_rows + (col / tile_cols) * tile_rows * tile_cols +
           (r % quarter) * 4 * tile_cols + ((r % tile_rows) / quarter) * tile_cols +
           col % tile_cols;
  }
};

//! The geometry of `layout` (Block128x4: tiles of 128 rows by 4 columns).
BlockScalingFactorGeometry blockScalingFactorGeometry(BlockScalingFactorLayout layout);

}  // namespace mf
