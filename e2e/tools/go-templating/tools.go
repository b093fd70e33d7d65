//go:build tools

package tools

import _ "github.com/crossplane-contrib/function-go-templating"
