package behaviour_test

import "github.com/robotd/robotd/field"

func fieldSPL() field.Dimensions { return field.SPL() }
