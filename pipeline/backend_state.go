//go:build !orilab_backend

package pipeline

// Backend is a placeholder until the back-end packages land.
type Backend struct{}
