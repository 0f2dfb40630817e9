package apigw

import (
	"net/http"

	"github.com/awslabs/aws-lambda-go-api-proxy/core"

	"meridian/shared/api"
	"meridian/shared/apierr"
	"meridian/shared/gateway"
)

// WithCaller puts the caller the key authorizer named into each request's
// context as the local gateway's middleware does (gateway.NewContext), so
// a handler that reads gateway.CallerFrom (whose key made a watch) sees
// the same on AWS: the key id API Gateway hands the function in
// requestContext.authorizer.key_id (functions/authorizer), never the key,
// and product. A request without one (only a misconfigured API could send
// it: every method requires a key and runs the authorizer) is refused as
// the local gateway refuses a request without a key.
func WithCaller(product gateway.Product, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var id string
		if rc, ok := core.GetAPIGatewayContextFromContext(r.Context()); ok {
			id, _ = rc.Authorizer["key_id"].(string)
		}
		if id == "" {
			api.WriteError(w, r, apierr.Unauthorizedf("missing_api_key", "Missing API key. Send your key in the X-API-Key header."))
			return
		}
		h.ServeHTTP(w, r.WithContext(gateway.NewContext(r.Context(), gateway.Caller{KeyID: id, Product: product})))
	})
}
