// Package layers holds no code: its test enforces the import rules of
// docs/ARCHITECTURE.md over every package of the module.
package layers
