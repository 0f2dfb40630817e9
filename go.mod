module meridian

go 1.26.0

require (
	github.com/aws/aws-lambda-go v1.55.1
	github.com/awslabs/aws-lambda-go-api-proxy v0.16.2
	github.com/google/go-cmp v0.7.0
	github.com/paulmach/orb v0.14.0
	golang.org/x/time v0.16.0
)
