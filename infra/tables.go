package main

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// itemTable is a table of kv's single-table design (pk and sk, strings),
// on demand, with point-in-time recovery, deletion protection, kept when
// the stack is deleted, and the AWS managed KMS key (aws/dynamodb):
// visible in the template and in CloudTrail, no key policy to keep, and
// readers need no KMS grant. DynamoDB's default (a key it owns) would
// encrypt as well, silently. The report table and the watches table.
func itemTable(scope constructs.Construct, id string) awsdynamodb.Table {
	return awsdynamodb.NewTable(scope, jsii.String(id), &awsdynamodb.TableProps{
		PartitionKey: &awsdynamodb.Attribute{Name: jsii.String("pk"), Type: awsdynamodb.AttributeType_STRING},
		SortKey:      &awsdynamodb.Attribute{Name: jsii.String("sk"), Type: awsdynamodb.AttributeType_STRING},
		BillingMode:  awsdynamodb.BillingMode_PAY_PER_REQUEST,
		PointInTimeRecoverySpecification: &awsdynamodb.PointInTimeRecoverySpecification{
			PointInTimeRecoveryEnabled: jsii.Bool(true),
		},
		Encryption:         awsdynamodb.TableEncryption_AWS_MANAGED,
		DeletionProtection: jsii.Bool(true),
		RemovalPolicy:      awscdk.RemovalPolicy_RETAIN,
	})
}
