// Package dynamokv is the report store on DynamoDB: a [kv.Store] in one
// table, used by the report functions on AWS and by `meridian-publish`. It
// is its own package, as the S3 store is (package blob/s3blob), so that
// what reads or writes reports locally does not link the AWS SDK. The
// package kv documents the single-table design and the contract this
// store keeps; its contract suite (kv/kvtest) runs against the minidyn
// emulator in this package's tests, and against another emulator when
// MERIDIAN_DYNAMODB_ENDPOINT is set:
//
//	MERIDIAN_DYNAMODB_ENDPOINT=http://127.0.0.1:8100 go test -count=1 -run 'External' ./shared/kv/dynamokv
package dynamokv

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"meridian/shared/apierr"
	"meridian/shared/awsconf"
	"meridian/shared/kv"
)

// Attribute names of the DynamoDB table: pk and sk are strings (S), data is
// binary (B) and absent when empty.
const (
	attrPK   = "pk"
	attrSK   = "sk"
	attrData = "data"
)

// batchSize is DynamoDB's limit of requests in one BatchWriteItem.
const batchSize = 25

// Defaults of Options.
const (
	DefaultTimeout            = 3 * time.Second
	DefaultWriteConcurrency   = 4
	DefaultBatchWriteAttempts = 8
	DefaultMaxBackoff         = 2 * time.Second
)

// API is the part of *dynamodb.Client that Store uses.
type API interface {
	GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	Query(ctx context.Context, in *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
	Scan(ctx context.Context, in *dynamodb.ScanInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error)
	BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error)
	PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
}

// Options configure a Store.
type Options struct {
	// Timeout bounds each SDK call, its retries included, so that a hung
	// or unreachable endpoint fails fast with a 503 instead of holding a
	// Lambda until its deadline. DefaultTimeout when zero.
	Timeout time.Duration
	// ConsistentRead makes every Get and Query strongly consistent (twice
	// the read cost). Without it, reads are eventually consistent except
	// where a stale answer would be wrong: the dataset pointers and version
	// counters (Get of PK kv.DatasetPK or DATASET#LAST, one item per request)
	// and the reads of a Dataset whose version was published less than
	// SettleWindow ago (kv.Query.Consistent, and a mark on Get's context).
	ConsistentRead bool
	// WriteConcurrency is the number of BatchWriteItem calls Put, Delete
	// and a Publish's Writer run at once (the workers of a write stream,
	// see write.go); DefaultWriteConcurrency when zero.
	WriteConcurrency int
	// BatchWriteAttempts bounds the attempts at writing a batch: its
	// UnprocessedItems (throttled partitions) and a call refused with a
	// throttling error are sent again, with exponential backoff and full
	// jitter between attempts (50 ms doubling, at most MaxBackoff), until
	// the batch is written or this many attempts were made;
	// DefaultBatchWriteAttempts when zero.
	BatchWriteAttempts int
	// MaxBackoff caps the wait between two attempts at a batch;
	// DefaultMaxBackoff when zero.
	MaxBackoff time.Duration
}

// Store is a kv.Store in one DynamoDB table whose key is pk (HASH, S) and sk
// (RANGE, S), with the record in the binary attribute data; see CreateTable.
// It is safe for concurrent use.
type Store struct {
	client API
	table  string
	opts   Options
	stats  writeCounters
}

// New returns a store over table. Build client once, at cold start
// (NewClient configures modest retries).
func New(client API, table string, opts Options) *Store {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.WriteConcurrency <= 0 {
		opts.WriteConcurrency = DefaultWriteConcurrency
	}
	if opts.BatchWriteAttempts <= 0 {
		opts.BatchWriteAttempts = DefaultBatchWriteAttempts
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = DefaultMaxBackoff
	}
	return &Store{client: client, table: table, opts: opts}
}

func attrS(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

func dynamoKey(pk, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{attrPK: attrS(pk), attrSK: attrS(sk)}
}

// decodeItem reads an item of the table; data may be absent.
func decodeItem(av map[string]types.AttributeValue) (kv.Item, error) {
	pk, ok1 := av[attrPK].(*types.AttributeValueMemberS)
	sk, ok2 := av[attrSK].(*types.AttributeValueMemberS)
	if !ok1 || !ok2 {
		return kv.Item{}, fmt.Errorf("dynamokv: item without string pk and sk: %v", av)
	}
	it := kv.Item{PK: pk.Value, SK: sk.Value}
	switch d := av[attrData].(type) {
	case nil:
	case *types.AttributeValueMemberB:
		it.Data = cloneData(d.Value)
	default:
		return kv.Item{}, fmt.Errorf("dynamokv: item %q/%q: data is %T, not binary", it.PK, it.SK, d)
	}
	return it, nil
}

func encodeItem(it kv.Item) map[string]types.AttributeValue {
	av := dynamoKey(it.PK, it.SK)
	if len(it.Data) > 0 {
		av[attrData] = &types.AttributeValueMemberB{Value: it.Data}
	}
	return av
}

// wrap translates an SDK error. parent is the caller's context, to tell
// its cancellation from our own timeout.
func (d *Store) wrap(parent context.Context, op string, err error) error {
	where := fmt.Sprintf("dynamokv: %s %s", op, d.table)
	if canceled(parent) {
		if errors.Is(err, context.Canceled) {
			return fmt.Errorf("%s: %w", where, err)
		}
		return fmt.Errorf("%s: %w: %w", where, context.Canceled, err)
	}
	var ae smithy.APIError
	if errors.As(err, &ae) && ae.ErrorCode() == "ValidationException" {
		// A request this package should not have sent: a bug, not an outage.
		return fmt.Errorf("%s: %w", where, err)
	}
	msg := kv.ReadMessage
	if op == "put" || op == "delete" {
		msg = kv.WriteMessage
	}
	return apierr.Unavailablef(fmt.Errorf("%s: %w: %w", where, kv.ErrUnavailable, err), msg)
}

// Get implements kv.Store with GetItem.
func (d *Store) Get(ctx context.Context, pk, sk string) (kv.Item, bool, error) {
	if err := kv.CheckKey(pk, sk); err != nil {
		return kv.Item{}, false, err
	}
	cctx, cancel := context.WithTimeout(ctx, d.opts.Timeout)
	defer cancel()
	out, err := d.client.GetItem(cctx, &dynamodb.GetItemInput{
		TableName:      aws.String(d.table),
		Key:            dynamoKey(pk, sk),
		ConsistentRead: aws.Bool(d.opts.ConsistentRead || controlPK(pk) || kv.ConsistentRead(ctx)),
	})
	if err != nil {
		return kv.Item{}, false, d.wrap(ctx, "get", err)
	}
	if len(out.Item) == 0 {
		return kv.Item{}, false, nil
	}
	it, err := decodeItem(out.Item)
	if err != nil {
		return kv.Item{}, false, d.wrap(ctx, "get", err)
	}
	return it, true, nil
}

// keyCondition returns the key condition of q (its cursor aside) and the
// attribute names and values it uses.
func keyCondition(q kv.Query) (string, map[string]string, map[string]types.AttributeValue) {
	names := map[string]string{"#pk": attrPK, "#sk": attrSK}
	vals := map[string]types.AttributeValue{":pk": attrS(q.PK)}
	cond := "#pk = :pk"
	switch {
	case q.SKFrom != "" && q.SKTo != "":
		cond += " AND #sk BETWEEN :from AND :to"
		vals[":from"], vals[":to"] = attrS(q.SKFrom), attrS(q.SKTo)
	case q.SKFrom != "":
		cond += " AND #sk >= :from"
		vals[":from"] = attrS(q.SKFrom)
	case q.SKTo != "":
		cond += " AND #sk <= :to"
		vals[":to"] = attrS(q.SKTo)
	case q.SKPrefix != "":
		cond += " AND begins_with(#sk, :prefix)"
		vals[":prefix"] = attrS(q.SKPrefix)
	default:
		delete(names, "#sk") // DynamoDB refuses names an expression does not use
	}
	return cond, names, vals
}

// Query implements kv.Store with Query calls on the table's key: as many as
// DynamoDB's 1 MB pages need to fill the page, plus one item to tell
// whether more follow. The cursor becomes the ExclusiveStartKey (DynamoDB
// and dynoxide accept one that names no item; the minidyn emulator answers
// nothing for it, which is why cursors are the SKs of returned items).
func (d *Store) Query(ctx context.Context, q kv.Query) (kv.Page, error) {
	limit, err := kv.CheckQuery(q)
	if err != nil {
		return kv.Page{}, err
	}
	afterUsed, empty := kv.QueryCursor(q)
	if empty {
		return kv.Page{}, nil
	}
	cond, names, vals := keyCondition(q)
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(d.table),
		KeyConditionExpression:    aws.String(cond),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: vals,
		ScanIndexForward:          aws.Bool(!q.Reverse),
		ConsistentRead:            aws.Bool(d.opts.ConsistentRead || q.Consistent || controlPK(q.PK) || kv.ConsistentRead(ctx)),
	}
	if afterUsed {
		in.ExclusiveStartKey = dynamoKey(q.PK, q.After)
	}
	var items []kv.Item
	for {
		in.Limit = aws.Int32(int32(limit + 1 - len(items)))
		cctx, cancel := context.WithTimeout(ctx, d.opts.Timeout)
		out, err := d.client.Query(cctx, in)
		cancel()
		if err != nil {
			return kv.Page{}, d.wrap(ctx, "query", err)
		}
		for _, av := range out.Items {
			it, err := decodeItem(av)
			if err != nil {
				return kv.Page{}, d.wrap(ctx, "query", err)
			}
			items = append(items, it)
		}
		if len(items) > limit || len(out.LastEvaluatedKey) == 0 {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	var page kv.Page
	if len(items) > limit {
		items = items[:limit]
		page.Next = items[limit-1].SK
	}
	page.Items = items
	return page, nil
}

// Swap implements kv.Store with one PutItem whose ConditionExpression is
// attribute_not_exists(pk) when expect is empty and data = :expect
// otherwise; DynamoDB evaluates the condition and writes atomically, and
// answers ConditionalCheckFailedException (swapped == false) when it does
// not hold.
//
// A Swap whose answer was lost (a timeout, a retry by the SDK after the
// first attempt was applied) may report false, or an error, although its
// write happened: a caller that needs to know reads the item back (Publish
// does).
func (d *Store) Swap(ctx context.Context, item kv.Item, expect []byte) (bool, error) {
	if err := kv.CheckItem(item); err != nil {
		return false, err
	}
	in := &dynamodb.PutItemInput{
		TableName:                aws.String(d.table),
		Item:                     encodeItem(item),
		ExpressionAttributeNames: map[string]string{"#pk": attrPK},
		ConditionExpression:      aws.String("attribute_not_exists(#pk)"),
	}
	if len(expect) > 0 {
		in.ExpressionAttributeNames = map[string]string{"#data": attrData}
		in.ConditionExpression = aws.String("#data = :expect")
		in.ExpressionAttributeValues = map[string]types.AttributeValue{":expect": &types.AttributeValueMemberB{Value: expect}}
	}
	cctx, cancel := context.WithTimeout(ctx, d.opts.Timeout)
	defer cancel()
	if _, err := d.client.PutItem(cctx, in); err != nil {
		var failed *types.ConditionalCheckFailedException
		if errors.As(err, &failed) {
			return false, nil
		}
		return false, d.wrap(ctx, "put", err)
	}
	return true, nil
}

// controlPK reports whether pk is a partition of the dataset pointers or
// version counters, which Store always reads strongly consistently.
func controlPK(pk string) bool { return pk == kv.DatasetPK || pk == kv.LastVersionPK }

// ScanKeys implements kv.Store with a paginated, strongly consistent Scan of
// the whole table, filtered by begins_with(pk, :prefix) and projecting the
// keys only. It reads (and is billed for) every item of the table:
// ingest-time only.
func (d *Store) ScanKeys(ctx context.Context, pkPrefix string, fn func([]kv.Key) error) error {
	if err := kv.CheckPrefix(pkPrefix); err != nil {
		return err
	}
	in := &dynamodb.ScanInput{
		TableName:                aws.String(d.table),
		ProjectionExpression:     aws.String("#pk, #sk"),
		ExpressionAttributeNames: map[string]string{"#pk": attrPK, "#sk": attrSK},
		ConsistentRead:           aws.Bool(true),
	}
	if pkPrefix != "" {
		in.FilterExpression = aws.String("begins_with(#pk, :prefix)")
		in.ExpressionAttributeValues = map[string]types.AttributeValue{":prefix": attrS(pkPrefix)}
	}
	for {
		cctx, cancel := context.WithTimeout(ctx, d.opts.Timeout)
		out, err := d.client.Scan(cctx, in)
		cancel()
		if err != nil {
			return d.wrap(ctx, "scan", err)
		}
		keys := make([]kv.Key, 0, len(out.Items))
		for _, av := range out.Items {
			it, err := decodeItem(av)
			if err != nil {
				return d.wrap(ctx, "scan", err)
			}
			keys = append(keys, kv.Key{PK: it.PK, SK: it.SK})
		}
		if len(keys) > 0 {
			if err := fn(keys); err != nil {
				return err
			}
		}
		if len(out.LastEvaluatedKey) == 0 {
			return nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// Close implements kv.Store; the client needs no closing.
func (d *Store) Close() error { return nil }

// TableAPI is the part of *dynamodb.Client that CreateTable uses.
type TableAPI interface {
	CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error)
	DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
}

// CreateTable creates the table of a Store (pk HASH S, sk RANGE S,
// on-demand billing) unless it exists, and waits until it is ACTIVE,
// polling DescribeTable: no SDK waiter, because the minidyn emulator
// reports an empty status (taken as ready). On AWS the table is normally
// made by the CDK stack; this is for emulators, tests and first set-up.
// Without a deadline on ctx it gives up after 5 minutes.
func CreateTable(ctx context.Context, client TableAPI, table string) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 5*time.Minute)
		defer cancel()
	}
	_, err := client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:   aws.String(table),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String(attrPK), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String(attrSK), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String(attrPK), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String(attrSK), KeyType: types.KeyTypeRange},
		},
	})
	var inUse *types.ResourceInUseException
	if err != nil && !errors.As(err, &inUse) {
		return apierr.Unavailablef(fmt.Errorf("dynamokv: create table %s: %w: %w", table, kv.ErrUnavailable, err), kv.WriteMessage)
	}
	wait := 20 * time.Millisecond
	for {
		out, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		if err != nil {
			return apierr.Unavailablef(fmt.Errorf("dynamokv: describe table %s: %w: %w", table, kv.ErrUnavailable, err), kv.WriteMessage)
		}
		if s := out.Table.TableStatus; s == types.TableStatusActive || s == "" {
			return nil
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return apierr.Unavailablef(fmt.Errorf("dynamokv: table %s not active: %w: %w", table, kv.ErrUnavailable, ctx.Err()), kv.WriteMessage)
		case <-t.C:
		}
		wait = min(2*wait, time.Second)
	}
}

// ClientOptions configure NewClient.
type ClientOptions struct {
	// Region; when empty, the SDK's default chain (AWS_REGION, profile),
	// and us-east-1 if that finds none.
	Region string
	// Endpoint is a custom endpoint such as http://127.0.0.1:8100 for an
	// emulator; empty means AWS.
	Endpoint string
	// AccessKeyID and SecretAccessKey set static credentials (emulators);
	// when empty, the SDK's default chain (environment, Lambda role).
	AccessKeyID, SecretAccessKey string
	// MaxAttempts is the number of attempts per call, retries included;
	// 3 when zero.
	MaxAttempts int
	// DisableResponseChecksum skips the CRC32 check of responses, for
	// emulators that send none or a wrong one (minidyn).
	DisableResponseChecksum bool
	// FirstByteTimeout ends a stalled attempt (awsconf.Options); Open sets
	// awsconf.FirstByteTimeout. Zero: none.
	FirstByteTimeout time.Duration
}

// NewClient builds a *dynamodb.Client for New with modest
// retries: 3 attempts per call (throttling, 5xx and network errors), full
// jitter between them, and the SDK's client-side retry quota that stops
// retrying during a long outage. Together with Options.Timeout this
// bounds how long a failing call can take. Call it once, at cold start.
func NewClient(ctx context.Context, o ClientOptions) (*dynamodb.Client, error) {
	attempts := o.MaxAttempts
	if attempts <= 0 {
		attempts = 3
	}
	cfg, err := awsconf.Load(ctx, awsconf.Options{Region: o.Region, AccessKeyID: o.AccessKeyID, SecretAccessKey: o.SecretAccessKey,
		MaxAttempts: attempts, BaseBackoff: 50 * time.Millisecond, FirstByteTimeout: o.FirstByteTimeout})
	if err != nil {
		return nil, fmt.Errorf("dynamokv: %w", err)
	}
	return dynamodb.NewFromConfig(cfg, func(do *dynamodb.Options) {
		if o.Endpoint != "" {
			do.BaseEndpoint = aws.String(o.Endpoint)
		}
		do.DisableValidateResponseChecksum = o.DisableResponseChecksum
	}), nil
}

// Open connects to table with the default client options (the SDK's
// chain: a Lambda's role and region): the report functions' cold start
// (lambdafn.Reports).
func Open(ctx context.Context, table string) (kv.Store, error) {
	client, err := NewClient(ctx, ClientOptions{FirstByteTimeout: awsconf.FirstByteTimeout})
	if err != nil {
		return nil, err
	}
	return New(client, table, Options{}), nil
}

// canceled reports whether the caller's context was canceled (as opposed to
// a deadline, which is the store being too slow: Unavailable).
func canceled(ctx context.Context) bool {
	return errors.Is(ctx.Err(), context.Canceled)
}

// cloneData returns a copy of b, nil when b is empty.
func cloneData(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return append([]byte(nil), b...)
}
