#include "csv_ladder.h"
