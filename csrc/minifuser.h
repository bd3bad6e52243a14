//! minifuser: a small fusion compiler for NVIDIA GPUs. This umbrella header is the public API.
#pragma once

#include "support/error.h"
#include "support/numerics.h"
#include "support/options.h"
