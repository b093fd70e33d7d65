//go:build tools

package tools

import _ "github.com/crossplane/function-auto-ready"
